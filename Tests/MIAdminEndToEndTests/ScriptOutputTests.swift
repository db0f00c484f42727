import Foundation
import MITestSupport
import Testing

/// A script's machine output: `--format json -f script` is one document `python3 -m json.tool`
/// accepts, not a stream of values; CSV has one header, not one per command; `show 6 --format csv`
/// names `media` and `violations` once each. Through the built binary.
@Suite(.tags(.endToEnd, .ldap)) struct ScriptOutputTests {
    let fixture = Fixture.shared

    func script(_ text: String) throws -> String {
        let path = try TempDir.make() + "/script.mi"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ config: String, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", config, "--user", "mkhan"] + arguments, password: fixture.password("mkhan"), input: input)
    }

    func storeWithTwoForms() throws -> String {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "A")
        try tree.form("jdoe", "B")
        return try fixture.store(importing: tree.root)
    }

    @Test func aScriptsJSONIsOneArrayClosedAfterAFailingLine() throws {
        let config = try storeWithTwoForms()
        let path = try script("whoami\nset format json\nforms --owner jdoe\nmove jdoe/Nope asmith\nwhoami\n")
        let result = try run(config, ["--format", "json", "-f", path])
        #expect(result.status == 3)
        #expect(result.stderr.contains("\(path):4: "), "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any], "\(result.stdout)")
        #expect(document.count == 2, "whoami and forms; set adds nothing, line 5 never ran")
        #expect((document[0] as? [String: Any])?["uid"] as? String == "mkhan")
        #expect((document[1] as? [[String: Any]])?.map { $0["name"] as? String } == ["A", "B"])
        // python3's reader, which rejected the old stream, takes it too.
        let tool = try Shell.run("/usr/bin/python3", ["-c", "import json,sys; print(len(json.load(sys.stdin)))"], input: result.stdout)
        #expect(tool.status == 0 && tool.stdout == "2\n", "\(tool.stderr)")

        // --on-error continue: every result, in order, and still one document.
        let going = try run(config, ["--format", "json", "--on-error", "continue", "-f", path])
        #expect(going.status == 3)
        let all = try #require(try JSONSerialization.jsonObject(with: Data(going.stdout.utf8)) as? [Any])
        #expect(all.count == 3)
        // A pipe is a script too; a run whose only command fails is the empty document.
        let piped = try run(config, ["--format", "json"], input: "nope\n")
        #expect(piped.status == 3 && piped.stdout == "[]\n", "\(piped.stdout)")
    }

    @Test func aLoneCommandKeepsItsOwnValueAndDryRunIsADocument() throws {
        let config = try storeWithTwoForms()
        let one = try run(config, ["--format", "json", "-c", "whoami"])
        #expect((try JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: Any])?["uid"] as? String == "mkhan")
        let two = try run(config, ["--format", "json", "-c", "whoami", "-c", "forms"])
        #expect((try JSONSerialization.jsonObject(with: Data(two.stdout.utf8)) as? [Any])?.count == 2, "\(two.stdout)")
        let dry = try run(config, ["--format", "json", "--dry-run", "-c", "move jdoe/A asmith"])
        let values = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [[String: Any]], "\(dry.stdout)")
        #expect(values.count == 2 && values.last?["message"] as? String == "dry run: nothing was saved")
    }

    @Test func jsonLinesKeepsOneValuePerCommandEachOnALine() throws {
        let config = try storeWithTwoForms()
        let path = try script("whoami\nforms --owner jdoe\nmove jdoe/A asmith\n")
        let result = try run(config, ["--format", "json", "--json-lines", "-f", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 3, "\(result.stdout)")
        for line in result.lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)") }
        let refused = try run(config, ["--format", "csv", "--json-lines", "-c", "whoami"])
        #expect(refused.status == 1 && refused.stderr.contains("--json-lines shapes JSON output: use it with --format json"))
    }

    @Test func aScriptsCSVHasOneHeaderPerTable() throws {
        let config = try storeWithTwoForms()
        let path = try script("move jdoe/A asmith\nmove jdoe/B asmith\nforms --owner asmith\n")
        let result = try run(config, ["--format", "csv", "-f", path])
        #expect(result.status == 0, "\(result.stderr)")
        let tables = result.stdout.components(separatedBy: "\r\n\r\n")
        try #require(tables.count == 2, "the moves, then the listing: \(result.stdout)")
        #expect(tables[0].hasPrefix("id,from,to,name,renamed,moved,expires\r\n"))
        #expect(tables[0].components(separatedBy: "\r\n").count == 3, "one header, two moves")
        #expect(tables[1].hasPrefix("id,name,owner,state,") && tables[1].components(separatedBy: "id,name,owner").count == 2)
    }

    @Test func showsCSVHeaderNamesEachColumnOnce() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let result = try run(config, ["--format", "csv", "-c", "show 'jdoe/Generator monthly'"])
        #expect(result.status == 0, "\(result.stderr)")
        let header = try #require(result.lines.first).split(separator: ",").map(String.init)
        #expect(Set(header).count == header.count, "\(header)")
        #expect(header.contains("media") && header.contains("questions.media") && header.contains("questions.violations"))
    }

    /// Ctrl-C while a script waits for its next line (a `source`d fifo): exit 130, and what the
    /// script wrote is still one JSON document.
    @Test func ctrlCClosesTheDocument() throws {
        let config = try storeWithTwoForms()
        let dir = try TempDir.make()
        let fifo = dir + "/more.mi", out = dir + "/out.json", err = dir + "/err"
        #expect(mkfifo(fifo, 0o600) == 0)
        let path = try script("whoami\nsource \(shellQuote(fifo))\nwhoami\n")
        // Through python3, which unblocks SIGINT: a child inherits the test runner's signal mask,
        // in which SIGINT may be blocked (a terminal's Ctrl-C is what InterruptTests sends).
        let unblock = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT]); "
            + "os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1); "
            + "os.dup2(os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2); os.execv(sys.argv[3], sys.argv[3:])"
        let pid = try Shell.start("/usr/bin/python3", ["-c", unblock, out, err, Paths.binary, "--config", config,
                                                       "--user", "mkhan", "--format", "json", "-f", path],
                                  environment: ["MIADMIN_PASSWORD": fixture.password("mkhan"), "HOME": dir])
        // The console has run line 1 once it opens the fifo; a bounded wait, not a timing check.
        let writer = Shell.openWriter(of: fifo, within: 30)
        try #require(writer >= 0, "the script never opened the fifo")
        kill(pid, SIGINT)
        _ = "forms\n".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect((status >> 8) & 0xff == 130, "exit status \(status): \((try? String(contentsOfFile: err, encoding: .utf8)) ?? "")")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any], "\(text)")
        #expect(document.count == 1 && (document[0] as? [String: Any])?["uid"] as? String == "mkhan", "\(text)")
    }
}
