import Foundation
import MITestSupport
import Testing

/// A `--dry-run` run writes no file: reports, calendars, media and the folders they would go
/// into are only named ("dry run: would write ..."), and its closing line is read once.
@Suite(.tags(.endToEnd, .ldap)) struct DryRunFileTests {
    let fixture = Fixture.shared

    func store() throws -> String {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump", created: "2026-11-20T08:00:00Z", media: ["Qid0(1).jpg": "photo bytes"])
        try tree.form("jdoe", "Valve", completed: true)
        return try fixture.store(importing: tree.root)
    }

    func dryRun(_ config: String, _ commands: [String]) throws -> ProcessResult {
        var args = ["--config", config, "--user", "mkhan", "--dry-run"]
        for command in commands { args += ["-c", command] }
        return try MIAdmin.run(args, password: fixture.password("mkhan"), environment: ["MIADMIN_NOW": "2026-11-21T09:00:00Z"])
    }

    @Test func aDryRunReportSaysWhatItWouldWriteAndWritesNothing() throws {
        let config = try store()
        let dir = try TempDir.make()
        let pdf = dir + "/r.pdf", many = dir + "/reports/nightly"
        let result = try dryRun(config, ["report jdoe/Valve --pdf \(shellQuote(pdf))",
                                         "report --state completed --dir \(shellQuote(many))"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: pdf), "the PDF is not written")
        #expect(!FileManager.default.fileExists(atPath: dir + "/reports"), "no folder is made")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(result.stderr.contains("dry run: would write \(pdf) (1 page)"), "\(result.stderr)")
        #expect(result.stderr.contains("dry run: would create the folder '\(many)'"))
        #expect(result.stderr.contains("dry run: would write \(many)/jdoe - Valve.pdf (1 page)"))
        // What a real run would refuse, a dry run refuses too.
        _ = FileManager.default.createFile(atPath: pdf, contents: Data("mine".utf8))
        let existing = try dryRun(config, ["report jdoe/Valve --pdf \(shellQuote(pdf))"])
        #expect(existing.status == 1 && existing.stderr.contains("add --force"), "\(existing.stderr)")
        #expect(try String(contentsOfFile: pdf, encoding: .utf8) == "mine")
    }

    @Test func aDryRunCalendarAndMediaWriteNoFile() throws {
        let config = try store()
        let dir = try TempDir.make()
        let ics = dir + "/week.ics", out = dir + "/review"
        let result = try dryRun(config, ["notifications --ics \(shellQuote(ics))", "media jdoe/Pump --out \(shellQuote(out))"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "neither the calendar nor the folder is written")
        #expect(result.stderr.contains("dry run: would write \(ics) ("), "\(result.stderr)")
        #expect(result.stderr.contains("dry run: would create the folder '\(out)'"))
        #expect(result.stderr.contains("dry run: would write \(out)/Qid0(1).jpg (11 bytes)"))
        // Into a folder that exists: still nothing in it.
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let again = try dryRun(config, ["media jdoe/Pump --out \(shellQuote(out))"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    @Test func nothingWasSavedIsSaidOnceWhereStdoutAndStderrAreOneFile() throws {
        let config = try store()
        // `2>&1`, as at a terminal: both streams reach one file.
        let result = try Shell.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>&1", Paths.binary, "--config", config, "--user", "mkhan",
                                               "--dry-run", "-c", "comment jdoe/Valve fine --yes"],
                                   environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "dry run: nothing was saved").count == 2, "\(result.stdout)")
        // Apart, each stream says it.
        let apart = try dryRun(config, ["comment jdoe/Valve fine --yes"])
        #expect(apart.stdout.contains("dry run: nothing was saved") && apart.stderr.contains("dry run: nothing was saved"))
    }
}
