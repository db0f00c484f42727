import Foundation
import MITestSupport
import Testing

/// Scripts read as psql reads them, through the built binary: Windows line ends and a byte
/// order mark, a NUL byte.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct ScriptInputTests {
    let fixture = Fixture.shared

    func write(_ bytes: [UInt8], _ name: String = "script.mi", in dir: String? = nil) throws -> String {
        let path = try (dir ?? TempDir.make()) + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func runScript(_ path: String, extra: [String] = []) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan", "-f", path] + extra,
                        password: fixture.password("mkhan"))
    }

    func pipe(_ bytes: [UInt8]) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"], password: fixture.password("mkhan"),
                        input: String(decoding: bytes, as: UTF8.self))
    }

    /// A script saved with CRLF (Notepad) takes the branch it says, and its `\o` file is closed.
    @Test func crlfScriptTakesTheRightBranchAndClosesItsOutputFile() throws {
        let dir = try TempDir.make()
        let text = "\\set go true\n\\if :go\n\\echo taken\n\\else\n\\echo wrong branch\n\\endif\n"
            + "\\if false\n\\echo skipped\n\\endif\n\\echo after\n"
            + "\\o \(dir)/listing.csv\nusers jdoe --format csv\n\\o\n\\echo end\n"
        let path = try write(Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8), in: dir)
        let result = try runScript(path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "taken\nafter\nend\n", "\(result.stdout)")
        let listing = try String(contentsOfFile: dir + "/listing.csv", encoding: .utf8)
        #expect(listing.contains("jdoe,John Doe"), "\(listing)")
        // A lone CR before the line's end is a line end too.
        let cr = try runScript(try write(Array("\\echo one\r\n\\echo two\r".utf8)))
        #expect(cr.status == 0 && cr.stdout == "one\ntwo\n", "\(cr.stdout) \(cr.stderr)")
    }

    /// A byte order mark before line 1, in a file or a pipe, is skipped; one later is data.
    @Test func byteOrderMarkIsSkippedAtTheStartOfAFileOrAPipe() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let file = try runScript(try write(bom + Array("\\echo first\r\n\\echo second\r\n".utf8)))
        #expect(file.status == 0 && file.stdout == "first\nsecond\n", "\(file.stdout) \(file.stderr)")
        let piped = try pipe(bom + Array("\\echo piped\n".utf8))
        #expect(piped.status == 0 && piped.stdout == "piped\n", "\(piped.stdout) \(piped.stderr)")
        let later = try pipe(Array("\\echo first\n".utf8) + bom + Array("whoami\n".utf8))
        #expect(later.status == 3)
        #expect(later.stderr.contains("<stdin>:2: unknown command"), "\(later.stderr)")
    }

    /// A NUL byte would cut the line short and run a shorter command than the one written.
    @Test func aNULByteIsAnErrorNamingItsLine() throws {
        let path = try write(Array("\\echo one\n\\echo two".utf8) + [0] + Array(" three\n\\echo four\n".utf8))
        let result = try runScript(path)
        #expect(result.status == 3)
        #expect(result.stdout == "one\n", "\(result.stdout)")
        #expect(result.stderr.contains("\(path):2: the line holds a NUL byte"), "\(result.stderr)")
    }
}
