import Foundation
import MITestSupport
import Testing

/// Scripted sessions: `-f`, pipes, `source`, errors with FILE:LINE and exit codes.
@Suite(.tags(.endToEnd, .ldap)) struct ScriptTests {
    let fixture = Fixture.shared

    func write(_ text: String, _ name: String = "script.mi", in dir: String? = nil) throws -> String {
        let dir = try dir ?? TempDir.make()
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func runScript(_ path: String, uid: String = "mkhan", extra: [String] = []) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", uid, "--format", "csv", "-f", path] + extra,
                        password: fixture.password(uid))
    }

    @Test func stopsAtTheFirstErrorWithFileAndLine() throws {
        let path = try write("""
            # a comment, then a blank line

            whoami
            users --role nosuchrole
            users nbody
            """)
        let result = try runScript(path)
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("\(path):4: users: "))
        #expect(result.stdout.contains("mkhan"))
        #expect(!result.stdout.contains("Nora Body"), "line 5 must not run")
    }

    @Test func onErrorContinueRunsEverythingAndStillExits3() throws {
        let path = try write("frobnicate\nusers nbody\n")
        let result = try runScript(path, extra: ["--on-error", "continue"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("\(path):1: unknown command 'frobnicate'"))
        #expect(result.stdout.contains("Nora Body"))
    }

    @Test func cleanScriptExits0() throws {
        let result = try runScript(try write("whoami\nusers 'x)(|(uid=*'\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
    }

    /// psql's meta words keep their backslash (the tokenizer took `\q` for a quoted `q`).
    @Test func backslashQQuitsAndBackslashXSetsExpanded() throws {
        let result = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"], password: fixture.password("mkhan"),
                                     input: "\\x on\nusers nbody\n\\q\nwhoami\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("note: expanded is on"))
        #expect(result.stdout.contains("-[ RECORD 1 ]"))
        #expect(!result.stdout.contains("Mariam Khan"), "whoami after \\q never ran")
    }

    @Test func pipeRunsLikeAScript() throws {
        let result = try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan", "--format", "json"],
                                     password: fixture.password("mkhan"), input: "whoami\nnope\nwhoami\n")
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("<stdin>:2: unknown command 'nope'"))
        // One JSON document, holding the one command that ran, not a stream of values.
        let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(document?.count == 1 && document?.first?["uid"] as? String == "mkhan", "\(result.stdout)")
    }

    @Test func nestedSourceReportsTheInnerFileAndLine() throws {
        let dir = try TempDir.make()
        let inner = try write("whoami\n\nusers --bogus\n", "inner.mi", in: dir)
        let outer = try write("whoami\nsource \(inner)\nusers nbody\n", "outer.mi", in: dir)
        let result = try runScript(outer)
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("\(inner):3: users: unknown option '--bogus'"))
        #expect(!result.stdout.contains("Nora Body"))
    }

    @Test func sourceDepthIsLimited() throws {
        let dir = try TempDir.make()
        let loop = dir + "/loop.mi"
        try "source \(loop)\n".write(toFile: loop, atomically: true, encoding: .utf8)
        let result = try runScript(loop)
        #expect(result.status == 3)
        #expect(result.stderr.contains("\(loop):1: source nested more than 16 levels deep"))
    }

    @Test func quotedWordsAndUnterminatedQuote() throws {
        let result = try runScript(try write("users \"O'Brien, Se*\"\nusers 'unterminated\n"))
        #expect(result.status == 3)
        #expect(result.stdout.contains("sobrien"))
        #expect(result.stderr.contains(":2: unterminated ' quote"))
    }

    @Test func controlCharactersFromDataAreEscaped() throws {
        // The fixture has no hostile names; a hostile *pattern* echoed back in an error shows the
        // same escaping path used for directory and store values.
        let result = try runScript(try write("users --role \u{1b}]0;pwned\u{07}\n"))
        #expect(result.status == 3)
        #expect(!result.stderr.contains("\u{1b}"))
        #expect(result.stderr.contains("\\x1b"))
    }
}
