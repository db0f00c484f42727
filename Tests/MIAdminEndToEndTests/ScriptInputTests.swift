import Foundation
import MITestSupport
import Testing

/// Scripts read as psql reads them, through the built binary: Windows line ends and a byte
/// order mark, a NUL byte, `\watch`'s bounds, `\gset` of a NULL, and a run stopped by a signal
/// while `\o` collects its output.
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

    @Test func watchRefusesAnIntervalOutsideATenthToAYearAndABadCount() throws {
        for interval in ["1e19", "1e300", "99999999999999999999", "0.05", "0", "-1", "31536001", "nan", "inf", "soon"] {
            let result = try MIAdmin.as_("mkhan", ["whoami", "\\watch \(interval) 1"])
            #expect(result.status == 1, "\\watch \(interval): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("\\watch: incorrect interval value '\(interval)'"), "\(result.stderr)")
        }
        for count in ["0", "-2", "1.5", "many"] {
            let result = try MIAdmin.as_("mkhan", ["whoami", "\\watch 0.1 \(count)"])
            #expect(result.status == 1, "count \(count): \(result.status)")
            #expect(result.stderr.contains("usage: \\watch [SECONDS] [COUNT]"), "\(result.stderr)")
        }
        // The bounds themselves are allowed; a JSON run refused mid-way still closes its array.
        let edge = try MIAdmin.as_("mkhan", format: "json", ["whoami", "\\watch 0.1 1", "\\watch 1e19"])
        #expect(edge.status == 1)
        let document = try JSONSerialization.jsonObject(with: Data(edge.stdout.utf8)) as? [Any]
        #expect(document?.count == 2, "\(edge.stdout)")
    }

    /// psql's `\gset` unsets the variable of a NULL column, so `:{?NAME}` says it is missing.
    @Test func gsetOfANullUnsetsTheVariable() throws {
        let config = try fixture.store(importing: try DocumentsTree().root)
        let path = try write(Array("""
            \\set w_oldest before
            workload --owner jdoe \\gset w_
            \\echo incomplete :w_incomplete
            \\if :{?w_oldest}
            \\echo oldest is set
            \\else
            \\echo oldest is unset
            \\endif

            """.utf8))
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "-f", path], password: fixture.password("mkhan"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "incomplete 0\noldest is unset\n", "\(result.stdout)")
    }

    /// SIGTERM (a timer's stop), SIGHUP and SIGINT while a script writes to `\o FILE`: what was
    /// collected lands in FILE as a closed JSON array, no temporary file is left, and the exit
    /// status is 128 + the signal.
    @Test(arguments: [(SIGTERM, Int32(143)), (SIGHUP, Int32(129)), (SIGINT, Int32(130))])
    func aSignalDuringOWritesWhatWasCollected(signalNumber: Int32, status: Int32) throws {
        let dir = try TempDir.make()
        let fifo = dir + "/more.mi"
        #expect(mkfifo(fifo, 0o600) == 0)
        let script = try write(Array("\\o \(dir)/out.json\nusers jdoe\nsource \(fifo)\nwhoami\n".utf8), in: dir)
        let home = try TempDir.make()
        let pid = try Shell.start(Paths.binary, ["--config", fixture.configPath, "--user", "mkhan", "--format", "json",
                                                 "-f", script],
                                  environment: ["MIADMIN_PASSWORD": fixture.password("mkhan"), "HOME": home])
        // The console opens the fifo once `users jdoe` has run; then it waits for a line.
        let writer = Shell.openWriter(of: fifo, within: 60)
        try #require(writer >= 0, "the console never opened \(fifo)")
        kill(pid, signalNumber)
        usleep(200_000)
        close(writer)  // end of the sourced file: the run loop sees the stop before its next line
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        #expect((raw & 0x7f) == 0, "ended by signal \(raw & 0x7f), not by its own exit")
        #expect((raw >> 8) & 0xff == status)
        let written = try String(contentsOfFile: dir + "/out.json", encoding: .utf8)
        let document = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [Any]
        #expect((document?.first as? [[String: Any]])?.first?["uid"] as? String == "jdoe", "\(written)")
        #expect(document?.count == 1, "whoami never ran: \(written)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }
}
