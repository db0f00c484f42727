import Foundation
import MITestSupport
import Testing

/// Output at a real terminal (tmux): the pager, expanded display and session settings.
@Suite(.serialized) struct DisplayTests {
    let prompt = "mkhan@foreman> "

    func storeWithForms(_ count: Int) throws -> String {
        let tree = try DocumentsTree()
        for i in 1...count { try tree.form("jdoe", String(format: "Form %03d", i)) }
        return try Fixture.shared.store(importing: tree.root)
    }

    /// Waits until the last non-empty line of the screen is `line` (the prompt back, or less's `:`).
    func waitForLastLine(_ term: TerminalSession, _ line: String) throws -> String {
        let end = Date().addingTimeInterval(20)
        var screen = ""
        while Date() < end {
            screen = try term.screen()
            let last = screen.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            if last.map(String.init)?.trimmingCharacters(in: .whitespaces) == line.trimmingCharacters(in: .whitespaces) {
                return screen
            }
            usleep(100_000)
        }
        Issue.record("the last line never became \"\(line)\"; screen:\n\(screen)")
        return screen
    }

    @Test func longOutputGoesThroughThePagerShortOutputDoesNot() throws {
        let config = try storeWithForms(80)
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.type("forms")
        try term.press("Enter")
        // less shows the first screen and waits at its ':' prompt; the end of the listing is not there yet.
        var screen = try waitForLastLine(term, ":")
        #expect(screen.contains("Form 001") && !screen.contains("(80 rows)"), "\(screen)")
        try term.press("q")
        _ = try waitForLastLine(term, prompt)
        // Short output is written directly.
        try term.type("whoami")
        try term.press("Enter")
        screen = try waitForLastLine(term, prompt)
        #expect(screen.contains("Mariam Khan"))
        // --no-pager and `set pager off` write long output directly.
        try term.type("forms --no-pager")
        try term.press("Enter")
        screen = try waitForLastLine(term, prompt)
        #expect(screen.contains("(80 rows)"))
        try term.type("set pager off")
        try term.press("Enter")
        screen = try term.waitFor("note: pager is off")
        try term.type("forms --older-than 0")
        try term.press("Enter")
        screen = try waitForLastLine(term, prompt)
        #expect(screen.contains("(80 rows)") && !screen.contains("note: pager is off"), "\(screen)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func pagerComesFromPAGER() throws {
        let config = try storeWithForms(80)
        // A sed script as the pager: the screen shows its marker and only the first lines.
        let term = try TerminalSession(uid: "mkhan", config: config, environment: ["PAGER": "sed -n '1,3p;4s/.*/PAGED BY SED/p'"])
        try term.waitFor(prompt)
        try term.type("forms")
        try term.press("Enter")
        let screen = try term.waitFor("PAGED BY SED")
        #expect(!screen.contains("Form 010"))
        try term.waitFor(prompt)
    }

    @Test func expandedSettingAtThePrompt() throws {
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.type("set expanded on")
        try term.press("Enter")
        try term.waitFor("note: expanded is on")
        try term.type("users nbody")
        try term.press("Enter")
        let screen = try term.waitFor("-[ RECORD 1 ]")
        #expect(screen.contains("name  | Nora Body"))
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }
}
