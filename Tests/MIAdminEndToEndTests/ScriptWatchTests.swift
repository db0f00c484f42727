import Foundation
import MITestSupport
import Testing

/// `\watch`, `\timing`, `\?`, `\h` in scripts; at the prompt (tmux) `\watch`, Tab, and
/// variables, `\gset` and `\if`.
@Suite(.serialized) struct ScriptWatchTests {
    let fixture = Fixture.shared
    let prompt = "mkhan@foreman> "

    func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", "mkhan"] + arguments,
                        password: fixture.password("mkhan"), input: input)
    }

    @Test func watchRunsThePreviousCommandCountTimesUnderATimeHeader() throws {
        let result = try run(["-c", "users jdoe", "-c", "\\watch 0.2 3"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "jdoe | John Doe").count - 1 == 4, "once, then three times")
        let headers = result.stdout.split(separator: "\n").filter { $0.hasSuffix("(every 0.2s): users jdoe") }
        #expect(headers.count == 3, "\(result.stdout)")
        // The header starts with the time, as tables show times.
        #expect(headers.allSatisfy { $0.range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"#, options: .regularExpression) != nil })
    }

    @Test func watchInCSVKeepsItsHeaderOnStderrAndNeedsAPreviousCommand() throws {
        let csv = try run(["--format", "csv", "-c", "users jdoe", "-c", "\\watch 0.1 2"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout == "uid,name,mail,roles\r\n" + String(repeating: "jdoe,John Doe,jdoe@example.com,technician\r\n", count: 3))
        #expect(csv.stderr.components(separatedBy: "(every 0.1s): users jdoe").count - 1 == 2)
        let first = try run(["-c", "\\watch 1 1"])
        #expect(first.status == 1)
        #expect(first.stderr.contains("no command to run again yet"))
        let bad = try run(["-c", "whoami", "-c", "\\watch -1"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("\\watch: incorrect interval value '-1'"))
    }

    /// Ctrl-C ends a watch in a script as it ends the script: exit 130, named at the line that
    /// did not run (in a terminal, where Ctrl-C comes from).
    @Test func ctrlCEndsAWatchingScript() throws {
        let script = try TempDir.make() + "/watch.mi"
        try "users jdoe\n\\watch 0.2\nwhoami\n".write(toFile: script, atomically: true, encoding: .utf8)
        let term = try TerminalSession(uid: "mkhan", arguments: ["-f", script])
        try term.waitFor("(every 0.2s): users jdoe")
        try term.press("C-c")
        let screen = try term.waitFor("[exited ")
        #expect(screen.contains("[exited 130]"), "\(screen)")
        #expect(screen.contains("watch.mi:3: interrupted (Ctrl-C): the script stopped here"), "\(screen)")
        #expect(!screen.contains("Mariam Khan"), "whoami never ran")
    }

    @Test func timingPrintsEachCommandsTime() throws {
        let result = try run(["-c", "\\timing on", "-c", "whoami", "-c", "\\timing off", "-c", "whoami"])
        #expect(result.status == 0, "\(result.stderr)")
        let times = result.stdout.split(separator: "\n").filter { $0.range(of: #"^Time: \d+\.\d{3} ms$"#, options: .regularExpression) != nil }
        #expect(times.count == 1, "\(result.stdout)")
        #expect(result.stderr.contains("note: timing is on"))
        let bad = try run(["-c", "\\timing sometimes"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("'sometimes' is not a boolean"))
    }

    @Test func questionMarkListsBackslashCommandsAndHIsHelp() throws {
        let list = try run(["-c", "\\?"])
        #expect(list.status == 0, "\(list.stderr)")
        for name in ["\\set", "\\unset", "\\if", "\\elif", "\\else", "\\endif", "\\gset", "\\o", "\\echo", "\\warn",
                     "\\watch", "\\timing", "\\?", "\\h", "\\x", "\\q"] {
            #expect(list.stdout.contains("  \(name) "), "\(name) missing")
        }
        let h = try run(["-c", "\\h move"])
        let help = try run(["-c", "help move"])
        #expect(h.status == 0 && h.stdout == help.stdout && h.stdout.contains("USAGE"))
        let all = try run(["--format", "csv", "-c", "help"])
        #expect(all.stdout.contains("\\watch,"))
        #expect(all.stdout.contains("\\gset,"))
        // The man page lists them from the same registry (roff spells a backslash \e).
        let manual = try MIAdmin.run(["--generate-manual"])
        #expect(manual.stdout.contains(".SH CONSOLE WORDS\n"))
        #expect(manual.stdout.contains(".B \\ewatch\n"))
    }

    /// A listing taller than the screen: paged before the watch, never while watching.
    @Test func watchAtThePromptRunsUntilCtrlCWithoutThePager() throws {
        let term = try TerminalSession(uid: "mkhan", environment: ["PAGER": "sed s/^/PAGED:/"])
        try term.waitFor(prompt)
        try term.enter("users 'u000*'")
        try term.waitFor("PAGED:(99 rows)")
        try term.enter("\\watch 0.5")
        // Each round's heading scrolls off the 40-row screen under its 99 rows.
        let rounds = try term.waitFor("(every 0.5s): users 'u000*'", times: 3, inScrollback: true)
        #expect(rounds.components(separatedBy: "(99 rows)").count - 1 >= 3, "\(rounds)")
        try term.press("C-c")
        try term.enter("\\echo back at the prompt")
        let screen = try term.waitFor("\nback at the prompt")
        #expect(!screen.contains("PAGED:"), "paged while watching: \(screen)")
        #expect(!screen.contains("[exited"))
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// Variables, `\gset` and `\if` at the prompt, as in a script; a mistake there leaves the
    /// person at the prompt.
    @Test func variablesGsetAndIfAtThePrompt() throws {
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.enter("\\set tech jdoe")
        try term.type("users :te")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "users :tech ") == "users :tech ")
        try term.press("Enter")
        try term.waitFor("jdoe | John Doe")
        try term.enter("whoami \\gset me_")
        try term.enter("users :nobody")
        try term.waitFor("error: variable 'nobody' is not set")
        try term.enter("\\if :ERROR")
        try term.enter("\\echo recovered as :me_name")
        try term.enter("\\endif")
        let screen = try term.waitFor("\nrecovered as Mariam Khan")
        #expect(!screen.contains("[exited"))
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// A question at the prompt under `\o`: the rows it is about went to the file, and the
    /// person is told so before answering.
    @Test func aQuestionUnderOSaysWhereItsRowsWent() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "A")
        try tree.form("jdoe", "B")
        let config = try fixture.store(importing: tree.root)
        let dir = try TempDir.make()
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("\\o \(dir)/plan.txt")
        try term.enter("move 'jdoe/*' asmith")
        try term.waitFor("note: what this asks about was listed in \(dir)/plan.txt")
        try term.waitFor("[y/N]")
        try term.enter("n")
        try term.enter("\\o")
        try term.enter("\\echo closed")
        try term.waitFor("\nclosed")
        let plan = try String(contentsOfFile: dir + "/plan.txt", encoding: .utf8)
        #expect(plan.contains("jdoe") && plan.contains("asmith"), "\(plan)")
    }

    @Test func tabCompletesBackslashCommands() throws {
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.type("\\wat")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "\\watch ") == "\\watch ")
        try term.press("C-u")
        try term.type("\\h mov")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "\\h move ") == "\\h move ")
        try term.press("C-u")
        try term.type("\\tim")
        try term.press("Tab")
        try term.type("of")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "\\timing off ") == "\\timing off ")
        try term.press("Enter")
        try term.waitFor("note: timing is off")
    }
}
