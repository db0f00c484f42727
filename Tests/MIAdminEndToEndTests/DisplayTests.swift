import Foundation
import MITestSupport
import Testing

/// Output at a real terminal (tmux): the pager, expanded display and session settings.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct DisplayTests {
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

    /// A store whose audit trail has `count` moves, each audit line about 200 columns wide.
    func storeWithMoves(_ count: Int) throws -> String {
        let tree = try DocumentsTree()
        for i in 1...count { try tree.form("jdoe", "Pump station \(i) with a long name for a wide audit line") }
        let config = try Fixture.shared.store(importing: tree.root)
        let moves = (1...count).map { "move 'jdoe/Pump station \($0) with a long name for a wide audit line' asmith --note 'jdoe is off sick this week'" }
        let moved = try MIAdmin.as_("mkhan", config: config, moves)
        #expect(moved.status == 0, "\(moved.stderr)")
        return config
    }

    /// `audit --since today` (lines of about 370 columns) wraps to 52 rows on a 40-row screen
    /// though it has only 12 newlines: the pager counts wrapped rows, not newlines. (`--wide`
    /// and `expanded off`: the whole grid, as the pipe has it; fitted, it would not wrap.)
    @Test func wideOutputThatWrapsPastTheScreenIsPaged() throws {
        let config = try storeWithMoves(8)
        let width = try MIAdmin.as_("mkhan", config: config, ["audit --command move"])
        let lines = width.stdout.split(separator: "\n")
        #expect(lines.count < 39, "fewer lines than the screen has rows: \(lines.count)")
        #expect(lines.map { $0.count }.reduce(0, +) < 120 * 40, "fewer characters than the screen holds")
        #expect(lines.map { ($0.count + 119) / 120 }.reduce(0, +) >= 40, "but more rows than the screen once wrapped")
        let term = try TerminalSession(uid: "mkhan", config: config, environment: ["PAGER": "echo PAGED; cat > /dev/null"])
        try term.waitFor(prompt)
        try term.enter("set expanded off")
        try term.waitFor("note: expanded is off")
        try term.enter("audit --command move --wide")
        try term.waitFor("PAGED")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// `set expanded auto` and psql's `\x`: blocks for a listing wider than the terminal (with
    /// `--wide`, which keeps every column whole), grids for the rest; `\x` toggles, `\x
    /// on|off|auto` sets.
    @Test func expandedAutoAndBackslashX() throws {
        let config = try storeWithMoves(1)
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("set expanded auto")
        try term.waitFor("note: expanded is auto")
        try term.enter("audit --command move --wide --no-pager")
        var screen = try term.waitFor("-[ RECORD 1 ]")
        #expect(screen.contains("note    | jdoe is off sick this week"), "\(screen)")
        try term.enter("users nbody")
        // The audit listing above also ends "(1 row)": wait for the grid's own header.
        screen = try term.waitFor("uid   | name")
        #expect(!screen.components(separatedBy: "users nbody").last!.contains("-[ RECORD"), "a narrow listing stays a grid: \(screen)")
        try term.enter("\\x")
        try term.waitFor("note: expanded is off")  // from auto, \x goes off (psql)
        try term.enter("\\x")
        try term.waitFor("note: expanded is on")
        try term.enter("\\x auto")
        try term.waitFor("note: expanded is auto")
        try term.enter("set")
        screen = try term.waitFor("auto")
        try term.enter("set expanded sometimes")
        try term.waitFor("expanded is on, off or auto, not 'sometimes'")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
        // Not a terminal: auto draws the grid.
        let piped = try MIAdmin.as_("mkhan", config: config, ["set expanded auto", "audit --command move"])
        #expect(piped.status == 0 && !piped.stdout.contains("RECORD") && piped.stdout.contains("id | at"), "\(piped.stdout)")
    }

    /// `show`'s question table leaves out columns that no question fills, and names them.
    @Test func showLeavesOutEmptyColumns() throws {
        let config = try Fixture.shared.store(importing: try Paths.copyOfSampleTree())
        let result = try MIAdmin.as_("mkhan", config: config, ["show 'jdoe/Generator monthly'"])
        #expect(result.status == 0, "\(result.stderr)")
        let header = try #require(result.lines.first { $0.hasPrefix("# | type") })
        #expect(!header.contains("invalidAnswer") && !header.contains("comment"), "\(header)")
        #expect(result.stdout.contains("(empty in every row, left out: comment, violations, invalidAnswer)"), "\(result.stdout)")
        let json = try MIAdmin.as_("mkhan", config: config, format: "json", ["show 'jdoe/Generator monthly'"])
        #expect(json.stdout.contains("\"invalidAnswer\":null"), "JSON keeps every key")
    }
}
