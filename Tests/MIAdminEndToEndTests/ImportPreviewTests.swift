import Foundation
import MITestSupport
import Testing

/// `import --dry-run` is a pre-check a script can trust: a tree the real import would fail on
/// fails the dry run too (exit 1), with the same warnings, and nothing is saved.
@Suite struct ImportPreviewTests {
    let fixture = Fixture.shared

    @Test func aDryRunExitsAsTheRealRunWould() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Good one")
        try tree.rawForm("jdoe", "Broken one", json: "{ not json")
        let config = try fixture.config()
        let dry = try MIAdmin.as_("mkhan", config: config, format: "csv", ["import --dry-run \(shellQuote(tree.root))"])
        #expect(dry.status == 1, "\(dry.stderr)")
        #expect(dry.stderr.contains("Broken one") && dry.stderr.contains("1 form(s) could not be imported"), "\(dry.stderr)")
        #expect(dry.stderr.contains("dry run: nothing was saved"))
        #expect(dry.stdout.contains("Good one,incomplete,would insert"), "\(dry.stdout)")
        let count = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms"])
        #expect(count.lines.count == 1, "nothing was saved: \(count.stdout)")

        let real = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(tree.root))"])
        #expect(real.status == dry.status, "\(real.stderr)")

        let clean = try DocumentsTree()
        try clean.form("jdoe", "Only good")
        let fine = try MIAdmin.as_("mkhan", config: config, ["import --dry-run \(shellQuote(clean.root))"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}

extension ImportPreviewTests {
    /// At the prompt, what will fail is said before the question, which counts it.
    @Test func thePromptsQuestionComesAfterWhatWillFail() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Good one")
        try tree.rawForm("jdoe", "Broken one", json: "{ not json")
        let config = try fixture.config()
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor("mkhan@foreman> ")
        try term.enter("import \(shellQuote(tree.root))")
        // The question wraps on the terminal's width: read the screen as one text.
        let asked = try term.waitFor("[y/N] ").replacingOccurrences(of: "\n", with: "")
        #expect(asked.contains("(1 form(s) cannot be imported, see the warnings)? [y/N]"), "\(asked)")
        let beforeQuestion = asked.components(separatedBy: "import 1 new")[0]
        #expect(beforeQuestion.contains("Broken one"), "\(asked)")
        #expect(beforeQuestion.contains("note: preview: nothing is changed until you answer"))
        try term.enter("n")
        try term.waitFor("cancelled")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// A collision's warning names the device's times in the site's zone, as every time the
    /// console writes, in the preview and in the import itself.
    @Test func aCollisionNamesItsTimesInTheSitesZone() throws {
        let first = try DocumentsTree()
        try first.form("jdoe", "Pump", created: "2026-11-16T08:15:00Z")
        let config = try fixture.store(importing: first.root)
        let second = try DocumentsTree()
        try second.form("jdoe", "Pump", created: "2026-11-17T09:00:00Z")
        let expected = "(created 2026-11-16 09:15:00+01:00, this one 2026-11-17 10:00:00+01:00)"
        for line in ["import --dry-run \(shellQuote(second.root))", "import --yes \(shellQuote(second.root))"] {
            let result = try MIAdmin.as_("mkhan", config: config, ["set timeZone Europe/Berlin", line])
            #expect(result.stderr.contains("jdoe already has another form named 'Pump' in the store " + expected), "\(line): \(result.stderr)")
            #expect(!result.stderr.contains("08:15:00Z"), "\(result.stderr)")
        }
    }
}
