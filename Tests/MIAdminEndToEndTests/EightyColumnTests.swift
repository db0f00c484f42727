import Foundation
import MITestSupport
import Testing

/// The console at an 80x24 terminal (tmux): `help` one line per command, listings fitted to the
/// screen or drawn as blocks (`\x auto`, the default at a terminal), errors in colour; and the
/// same commands in a pipe, unchanged.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct EightyColumnTests {
    let prompt = "mkhan@foreman> "

    /// The lines of a grid on `screen`, from its header (`command | description`) up to the
    /// line after its rows.
    func gridLines(_ screen: String, header: String, until end: String) throws -> [String] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.lastIndex { $0.hasPrefix(header) }, "no \(header) on:\n\(screen)")
        let stop = try #require(lines[start...].firstIndex { $0.hasPrefix(end) }, "no \(end) on:\n\(screen)")
        return Array(lines[start..<stop])
    }

    @Test func helpIsOneLinePerCommandAtEightyColumns() throws {
        let term = try TerminalSession(uid: "mkhan", size: (80, 24))
        try term.waitFor(prompt)
        try term.enter("help --no-pager")
        let screen = try term.waitFor("(left out to fit the screen: roles; --wide shows every column)")
        // The list is longer than the screen: every line above the note is a row of it. Each row
        // is one line: the column bar sits at the same place on every line (a row wrapped by the
        // terminal would put text there).
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let note = try #require(lines.firstIndex { $0.hasPrefix("(left out") })
        let rows = lines[..<note]
        #expect(rows.count >= 20, "\(screen)")
        let offset = try #require(rows.last?.firstIndex(of: "|")).utf16Offset(in: rows.last!)
        for line in rows {
            #expect(line.utf16.count > offset && Array(line.utf16)[offset] == UInt16(UInt8(ascii: "|")), "a wrapped row: \(line)\n\(screen)")
        }
        #expect(rows.contains { $0.hasSuffix("…") }, "a long description is cut: \(screen)")
        // The whole text is in `help COMMAND`.
        try term.enter("help whoami")
        try term.waitFor("USAGE: whoami")
        // `--wide`: every column, wrapped as the terminal wraps it (blocks, under \x auto).
        try term.enter("help --wide --no-pager")
        let wide = try term.waitFor("rows)")
        #expect(wide.contains("roles       | ") || wide.contains("| foreman"), "\(wide)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
        // A pipe keeps the whole grid, roles and all, uncut.
        let piped = try MIAdmin.as_("mkhan", ["help"])
        #expect(piped.status == 0)
        #expect(piped.lines.first.map { $0.hasPrefix("command") && $0.hasSuffix("| roles") } == true, "\(piped.stdout)")
        #expect(!piped.stdout.contains("…") && !piped.stdout.contains("left out"))
    }

    @Test func listingsFitEightyColumnsOrBecomeBlocks() throws {
        let tree = try DocumentsTree()
        for i in 1...3 { try tree.form("jdoe", "Pump station \(i) monthly") }
        let config = try Fixture.shared.store(importing: tree.root)
        let term = try TerminalSession(uid: "mkhan", config: config, size: (80, 24))
        try term.waitFor(prompt)
        try term.enter("forms --no-pager")
        let screen = try term.waitFor("(3 rows)")
        // forms at 80 columns: the modified time, then the template are left out first; what
        // still does not fit is drawn as blocks (`\x auto`, the default at a terminal). Either
        // way no row wraps.
        if screen.contains("-[ RECORD 1 ]") {
            #expect(screen.contains("template | "), "blocks carry every column: \(screen)")
        } else {
            #expect(screen.contains("(left out to fit the screen: "), "\(screen)")
            let grid = try gridLines(screen, header: "id", until: "(left out")
            #expect(grid.allSatisfy { $0.count <= 80 } && grid.count == 5, "\(grid)")
        }
        try term.enter("set")
        try term.waitFor("expanded  auto")  // the default at a terminal
        try term.enter("today --no-pager")
        let today = try term.waitFor("(6 rows)")
        #expect(today.contains("(left out to fit the screen: all; --wide shows every column)"), "\(today)")
        #expect(today.split(separator: "\n").contains { $0.hasPrefix("overdue ") }, "a grid, one line a row: \(today)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
        // Not a terminal: the same grid as ever, with its template; `set` says expanded is off.
        let piped = try MIAdmin.as_("mkhan", config: config, ["forms", "set"])
        #expect(piped.stdout.contains("| template ") && !piped.stdout.contains("RECORD") && !piped.stdout.contains("left out"), "\(piped.stdout)")
        #expect(piped.stdout.contains("expanded  off"), "\(piped.stdout)")
    }

    /// `users` and `audit` at 80 columns: a grid, one line a row, the columns that do not fit
    /// left out (users' mail; audit's before, after and note) and long cells cut, rather than
    /// thousands of blocks; blocks and `--wide` still carry every column.
    @Test func usersAndAuditFitEightyColumns() throws {
        let config = try Fixture.shared.store(importing: Paths.copyOfSampleTree())
        let term = try TerminalSession(uid: "mkhan", config: config, size: (80, 24))
        try term.waitFor(prompt)
        try term.enter("users --role technician --no-pager")
        let users = try term.waitFor("(left out to fit the screen: mail; --wide shows every column)", deadline: 60)
        #expect(!users.contains("-[ RECORD"), "\(users)")
        // The screen shows the last rows: every line above the note is one.
        let lines = users.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let note = try #require(lines.firstIndex { $0.hasPrefix("(left out") })
        let userRows = lines[..<note].suffix(15)
        #expect(userRows.allSatisfy { $0.count <= 80 && $0.hasSuffix(" | technician") }, "\(users)")
        try term.press("C-l")
        try term.enter("audit --no-pager")
        let audit = try term.waitFor("(left out to fit the screen: before, after, note; --wide shows every column)")
        #expect(!audit.contains("-[ RECORD"), "\(audit)")
        let auditRows = try gridLines(audit, header: "id ", until: "(left out")
        #expect(auditRows.count >= 3 && auditRows.allSatisfy { $0.count <= 80 }, "\(audit)")
        #expect(auditRows.contains { $0.contains("| import.insert ") }, "\(audit)")
        // Blocks carry every column.
        try term.enter("audit --last 1 -x --no-pager")
        let block = try term.waitFor("(1 row)")
        #expect(block.contains("before  | ") && block.contains("note    | "), "\(block)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// The screen line (with its escapes) of an error at the prompt, in a terminal with `environment`.
    func errorLine(environment: [String: String] = [:]) throws -> String {
        let term = try TerminalSession(uid: "mkhan", environment: environment, size: (80, 24))
        try term.waitFor(prompt)
        try term.enter("show 999999")
        try term.waitFor("error:")
        let line = try #require(try term.screenWithEscapes().split(separator: "\n").first { $0.contains("error:") })
        try term.press("C-d")
        try term.waitFor("[exited 0]")
        return String(line)
    }

    @Test func errorsAndWarningsAreColouredAtATerminalOnly() throws {
        let coloured = try errorLine()
        #expect(coloured.contains("\u{1B}[") && coloured.contains("31m"), "red error label: \(coloured.debugDescription)")
        let noColour = try errorLine(environment: ["NO_COLOR": "1"])
        #expect(!noColour.contains("31m"), "NO_COLOR: \(noColour.debugDescription)")
        let dumb = try errorLine(environment: ["TERM": "dumb"])
        #expect(!dumb.contains("31m"), "TERM=dumb: \(dumb.debugDescription)")

        // A pipe or a file never gets escapes, even with a colour terminal named.
        let piped = try MIAdmin.run(["--config", Fixture.shared.configPath, "--user", "mkhan", "-c", "show 999999"],
                                    password: Fixture.shared.password("mkhan"), environment: ["TERM": "xterm-256color"])
        #expect(piped.status != 0 && piped.stderr.contains("error:") && !piped.stderr.contains("\u{1B}"), "\(piped.stderr)")
    }
}
