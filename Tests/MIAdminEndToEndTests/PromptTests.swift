import Foundation
import MITestSupport
import Testing

/// The interactive prompt in a real terminal (tmux): completion, Ctrl-C, history.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct PromptTests {
    let prompt = "mkhan@foreman> "

    @Test func interruptAtThePasswordPromptTurnsEchoBackOn() throws {
        // After miadmin ends, the same terminal prints its echo setting: "echo" or "-echo".
        let term = try TerminalSession(uid: "mkhan", askPassword: true,
                                       afterwards: "stty -a | tr ' ' '\\n' | grep -x -e echo -e -echo | sed 's/^/tty: /'")
        try term.waitFor("Password for mkhan: ")
        try term.type("half-typed")
        try term.press("C-c")
        let screen = try term.waitFor("[exited ")
        #expect(screen.contains("tty: echo"), "\(screen)")
        #expect(!screen.contains("tty: -echo"))
        #expect(screen.contains("[exited 130]"), "ended by the signal, as without the handler")
        #expect(!screen.contains("half-typed"))
    }

    /// Echo goes off before the prompt shows: whatever is typed once the prompt is there is not
    /// echoed, however fast. The order of the two system calls, traced, says so whatever the timing.
    @Test func echoIsOffBeforeThePasswordPromptIsWritten() throws {
        let trace = try TempDir.make() + "/trace"
        let term = try TerminalSession(uid: "mkhan", askPassword: true, arguments: ["-c", "whoami"],
                                       wrapper: ["/usr/bin/strace", "-qq", "-o", trace, "-e", "trace=ioctl,write"])
        try term.waitFor("Password for mkhan: ")
        try term.enter(Fixture.shared.password("mkhan"))
        try term.waitFor("[exited 0]")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let prompt = try #require(calls.firstIndex { $0.hasPrefix("write(") && $0.contains("Password for mkhan: ") })
        // strace shows the local flags set (`c_lflag=ISIG|ICANON|ECHOE|…`): echo off is no ECHO there.
        func turnsEchoOff(_ call: Substring) -> Bool {
            guard call.contains("TCSETS"), let flags = call.range(of: "c_lflag=") else { return false }
            let set = call[flags.upperBound...].prefix { $0 != "," && $0 != "}" }.split(separator: "|")
            return !set.contains("ECHO")
        }
        let echoOff = try #require(calls.firstIndex(where: turnsEchoOff), "\(calls)")
        #expect(echoOff < prompt, "\(calls[min(echoOff, prompt)...max(echoOff, prompt)])")
    }

    /// A mistyped password does not end the console (and with it the demo): it asks again,
    /// three tries in all, as sudo does.
    @Test func aWrongTypedPasswordAsksAgain() throws {
        let term = try TerminalSession(uid: "mkhan", askPassword: true)
        try term.waitFor("Password for mkhan: ")
        try term.enter("not-the-password")
        try term.waitFor("wrong password; try again")
        try term.enter(Fixture.shared.password("mkhan"))
        let screen = try term.waitFor(prompt)
        #expect(screen.components(separatedBy: "Password for mkhan: ").count - 1 == 2, "\(screen)")
        #expect(!screen.contains("not-the-password"), "no echo")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func threeWrongTypedPasswordsEndTheLogin() throws {
        let term = try TerminalSession(uid: "mkhan", askPassword: true)
        for attempt in 1...3 {
            try term.waitFor("Password for mkhan: ")
            try term.enter("wrong-\(attempt)")
            if attempt < 3 {
                // Wait for the next prompt (the attempt's "try again" line comes before it).
                let end = Date().addingTimeInterval(20)
                while try term.screen().components(separatedBy: "Password for mkhan: ").count - 1 < attempt + 1, Date() < end {
                    usleep(100_000)
                }
            }
        }
        let screen = try term.waitFor("[exited ")
        #expect(screen.contains("[exited 4]"), "\(screen)")
        #expect(screen.components(separatedBy: "Password for mkhan: ").count - 1 == 3, "\(screen)")
        #expect(screen.components(separatedBy: "; try again").count - 1 == 2, "\(screen)")
        #expect(!screen.contains("mkhan@foreman> "))
    }

    @Test func bannerAndPromptShowUserAndRole() throws {
        let term = try TerminalSession(uid: "tpatel")
        let screen = try term.waitFor("tpatel@foreman> ")
        #expect(screen.contains("miadmin: tpatel (Tara Patel; foreman, technician)"))
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func tabCompletesCommandOptionAndChoice() throws {
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.type("who")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "whoami ") == "whoami ")
        try term.press("C-u")
        try term.type("users --ro")
        try term.press("Tab")
        try term.type("tech")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "users --role technician ") == "users --role technician ")
        try term.type("'*night*'")
        try term.press("Enter")
        try term.waitFor("O'Brien, Seán (night shift)")
    }

    @Test func tabCompletesAUserID() throws {
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        // move FORM UID: the second word completes from the directory's user ids.
        try term.type("move 12 asm")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "move 12 asmith ") == "move 12 asmith ")
        try term.press("C-u")
        try term.type("users --role tech")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "users --role technician ") == "users --role technician ")
        try term.press("C-u")
        try term.type("notices zang")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "notices zangstrom ") == "notices zangstrom ")
    }

    @Test func userIDsCompleteOnlyForRolesThatMayListUsers() throws {
        // A technician may not run `users`, so Tab must not list the directory to them. The
        // marker typed after Tab shows the Tab was handled (input is processed in order), so a
        // slow completion cannot pass for no completion.
        let technician = try TerminalSession(uid: "jdoe")
        try technician.waitFor("jdoe@technician> ")
        try technician.type("notices zang")
        try technician.press("Tab")
        try technician.type("#")
        try technician.waitFor("jdoe@technician> notices zang#")
        #expect(try technician.currentLine(prompt: "jdoe@technician> ") == "notices zang#")
        let foreman = try TerminalSession(uid: "mkhan")
        try foreman.waitFor(prompt)
        try foreman.type("notices zang")
        try foreman.press("Tab")
        try foreman.type("#")
        try foreman.waitFor(prompt + "notices zangstrom #")
    }

    @Test func ctrlCCancelsTheLineNotTheProgram() throws {
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.type("users this line is abandoned")
        try term.press("C-c")
        try term.type("whoami")
        try term.press("Enter")
        let screen = try term.waitFor("Mariam Khan")
        #expect(!screen.contains("abandoned'"))
        #expect(!screen.contains("[exited"))
        #expect(!screen.contains("error:"))
    }

    @Test func historyIsPrivateRecalledAcrossSessionsAndKeepsSecretsOut() throws {
        let home = try TempDir.make()
        do {
            let first = try TerminalSession(uid: "mkhan", home: home)
            try first.waitFor(prompt)
            try first.type("users 'u0000?'")
            try first.press("Enter")
            try first.waitFor("(9 rows)")
            try first.type(" whoami")  // leading space: not recorded
            try first.press("Enter")
            try first.waitFor("Mariam Khan")
            try first.type("help --password hunter2")  // mentions a password: not recorded
            try first.press("Enter")
            try first.waitFor("error:")
            try first.press("C-d")
            try first.waitFor("[exited 0]")
        }
        let path = home + "/.local/state/miadmin/history-mkhan"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let history = try String(contentsOfFile: path, encoding: .utf8)
        #expect(history.contains("users 'u0000?'"))
        #expect(!history.contains("whoami"))
        #expect(!history.contains("hunter2"))

        let second = try TerminalSession(uid: "mkhan", home: home)
        try second.waitFor(prompt)
        try second.press("Up")
        #expect(try second.currentLine(prompt: prompt) == "users 'u0000?'")
    }

    @Test func destructiveCommandAsksAndNoKeepsTheStoreUnchanged() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Asked first")
        let config = try Fixture.shared.config()
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.type("import \(shellQuote(tree.root))")
        try term.press("Enter")
        try term.waitFor("/N] ")  // the question may wrap at the pane width
        try term.type("n")
        try term.press("Enter")
        try term.waitFor("cancelled; nothing was changed")
        #expect(try sqlite(try Fixture.shared.storePath(config), "SELECT COUNT(*) FROM forms") == "0")
        try term.type("import \(shellQuote(tree.root))")
        try term.press("Enter")
        try term.waitFor("/N] ")  // the question may wrap at the pane width
        try term.type("y")
        try term.press("Enter")
        try term.waitFor("(1 row)")
        #expect(try sqlite(try Fixture.shared.storePath(config), "SELECT name FROM forms") == "Asked first")
    }

    @Test func tabCompletesFileNamesForSourceAndFormNamesWithSpaces() throws {
        let dir = try TempDir.make()
        try "whoami\n".write(toFile: dir + "/nightly-checks.mi", atomically: true, encoding: .utf8)
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump station 4")
        let config = try Fixture.shared.store(importing: tree.root)
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.type("source \(dir)/nightly-")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "source \(dir)/nightly-checks.mi ") == "source \(dir)/nightly-checks.mi ")
        try term.press("C-u")
        try term.type("show jd")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "show jdoe/") == "show jdoe/")
        try term.type("Pu")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "show 'jdoe/Pump station 4' ") == "show 'jdoe/Pump station 4' ")
        try term.press("Enter")
        try term.waitFor("Monthly pump inspection")
    }
}
