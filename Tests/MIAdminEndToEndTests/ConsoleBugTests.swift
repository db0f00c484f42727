import Foundation
import MITestSupport
import Testing

/// The console as people use it, each case against the built binary, the
/// real slapd and real SQLite files; tmux where the terminal matters.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct ConsoleBugTests {
    let fixture = Fixture.shared
    let prompt = "mkhan@foreman> "

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    func script(_ text: String, _ name: String = "run.mi") throws -> String {
        let path = try TempDir.make() + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aFailingSourceAtThePromptReturnsToThePrompt() throws {
        let bad = try script("whoami\nfrobnicate\nusers nbody\n", "bad.mi")
        let term = try TerminalSession(uid: "mkhan")
        try term.waitFor(prompt)
        try term.type("source \(bad)")
        try term.press("Enter")
        try term.waitFor("\(bad):2: unknown command 'frobnicate'")
        try term.type("users nbody")
        try term.press("Enter")
        let screen = try term.waitFor("Nora Body")
        #expect(!screen.contains("[exited"), "the console must stay open")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func quitAfterAFailureInAnAtomicRunRollsBackAndExits3() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "A")
        let config = try fixture.store(importing: tree.root)
        let store = try fixture.storePath(config)
        let path = try script("move jdoe/A asmith\nmove jdoe/NoSuchForm asmith\nquit\n")
        let atomic = try MIAdmin.run(["--config", config, "--user", "mkhan", "--atomic", "--on-error", "continue", "-f", path],
                                     password: fixture.password("mkhan"))
        #expect(atomic.status == 3, "\(atomic.stderr)")
        #expect(atomic.stderr.contains("nothing was saved"))
        #expect(try sqlite(store, "SELECT owner FROM forms") == "jdoe")
        // Without --atomic the move stays, and the run still reports the failure.
        let plain = try MIAdmin.run(["--config", config, "--user", "mkhan", "--on-error", "continue", "-f", path],
                                    password: fixture.password("mkhan"))
        #expect(plain.status == 3)
        #expect(try sqlite(store, "SELECT owner FROM forms") == "asmith")
        // A clean script that quits still exits 0.
        let clean = try MIAdmin.run(["--config", config, "--user", "mkhan", "-f", try script("whoami\nquit\nfrobnicate\n")],
                                    password: fixture.password("mkhan"))
        #expect(clean.status == 0, "\(clean.stderr)")
    }

    @Test func noticesNameTheRoleTheNewNameTheReasonAndReachTheReceiver() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Pump station 4")
        try tree.form("asmith", "Pump station 4")
        try tree.form("asmith", "Pump station 4 (2)")
        try tree.form("jdoe", "Generator monthly", completed: true)
        let config = try fixture.store(importing: tree.root)
        let move = try MIAdmin.as_("lchen", config: config, ["move 'jdoe/Pump station 4' asmith --note 'jdoe on leave'"])
        #expect(move.status == 0, "\(move.stderr)")
        let reopen = try MIAdmin.as_("lchen", config: config, ["reopen 'jdoe/Generator monthly' --note 'gauge photo missing'"])
        #expect(reopen.status == 0, "\(reopen.stderr)")

        let jdoe = try json(MIAdmin.as_("jdoe", config: config, format: "json", ["notices"]).stdout) as! [[String: Any]]
        #expect(jdoe.map { $0["text"] as! String } == [
            "Form 'Pump station 4' was reassigned to asmith as 'Pump station 4 (3)' by support lchen: jdoe on leave",
            "Form 'Generator monthly' was sent back to you by support lchen: gauge photo missing"])
        let asmith = try json(MIAdmin.as_("asmith", config: config, format: "json", ["notices"]).stdout) as! [[String: Any]]
        #expect(asmith.map { $0["text"] as! String } == [
            "Form 'Pump station 4 (3)' (was 'Pump station 4') was given to you from jdoe by support lchen: jdoe on leave"])
        // A foreman is named as one.
        _ = try MIAdmin.as_("tpatel", config: config, ["move 'asmith/Pump station 4 (2)' jdoe"])
        let again = try json(MIAdmin.as_("jdoe", config: config, format: "json", ["notices"]).stdout) as! [[String: Any]]
        #expect(again.last?["text"] as? String == "Form 'Pump station 4 (2)' was given to you from asmith by foreman tpatel.")
    }

    @Test func confirmationListsFirstThenNoAndCtrlCCancelQuietly() throws {
        let tree = try DocumentsTree()
        for i in 1...3 { try tree.form("jdoe", "Old form \(i)", created: "2026-10-01T08:00:00Z") }
        let config = try fixture.store(importing: tree.root)
        let store = try fixture.storePath(config)
        let term = try TerminalSession(uid: "mkhan", config: config, environment: ["MIADMIN_NOW": "2026-11-21T09:00:00Z"])
        try term.waitFor(prompt)
        try term.type("expire")
        try term.press("Enter")
        // The list is on the screen while the question waits for the answer.
        var screen = try term.waitFor("/N] ")
        #expect(screen.contains("Old form 1") && screen.contains("Old form 3"), "\(screen)")
        try term.type("n")
        try term.press("Enter")
        screen = try term.waitFor("cancelled; nothing was changed")
        #expect(!screen.contains("error:"), "\(screen)")
        try term.waitFor(prompt)
        // Ctrl-C at the question cancels it; the next line typed is a command, not an answer.
        try term.press("C-u")
        try term.type("expire")
        try term.press("Enter")
        try term.waitFor("/N] ")
        try term.press("C-c")
        try term.type("whoami")
        try term.press("Enter")
        screen = try term.waitFor("Mariam Khan")
        #expect(!screen.contains("error:"), "\(screen)")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms WHERE trashed_at IS NULL") == "3")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func aLongConfirmationListShowsAScreenfulAndACount() throws {
        let tree = try DocumentsTree()
        for i in 1...60 { try tree.form("jdoe", String(format: "Old form %02d", i), created: "2026-10-01T08:00:00Z") }
        let config = try fixture.store(importing: tree.root)
        let term = try TerminalSession(uid: "mkhan", config: config, environment: ["MIADMIN_NOW": "2026-11-21T09:00:00Z"])
        try term.waitFor(prompt)
        try term.type("expire")
        try term.press("Enter")
        let screen = try term.waitFor("/N] ")
        #expect(screen.contains("Old form 01"), "the top of the list is still on the screen: \(screen)")
        #expect(screen.contains("more (60 in all)"))
        try term.type("n")
        try term.press("Enter")
        try term.waitFor("cancelled; nothing was changed")
    }

    @Test func wideCharactersKeepTheColumnsAligned() throws {
        let tree = try DocumentsTree()
        for name in ["泵站 4 检查", "点検 第3号", "Pump 🔧 check", "Café crème", "Plain"] {
            try tree.form("jdoe", name)
        }
        let config = try fixture.store(importing: tree.root)
        let result = try MIAdmin.as_("mkhan", config: config, ["forms"])
        #expect(result.status == 0, "\(result.stderr)")
        // The display column where the third cell starts is the same on every line, measured by
        // coreutils' `wc -L` (glibc's wcwidth), not by our own width function.
        let lines = result.lines.filter { $0.contains(" | ") }
        #expect(lines.count == 6)
        var starts: Set<Int> = []
        for line in lines {
            let parts = line.components(separatedBy: " | ")
            let prefix = parts[0] + " | " + parts[1] + " | "
            let width = try Shell.run("/usr/bin/wc", ["-L"], input: prefix + "\n")
            starts.insert(Int(width.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
        }
        #expect(starts.count == 1, "\(result.stdout)")
    }

    @Test func dryRunAndFailedAtomicOutputSayNothingWasSaved() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "A")
        let config = try fixture.store(importing: tree.root)
        let dry = try MIAdmin.as_("mkhan", config: config, format: "json", ["move jdoe/A asmith"], extra: ["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        // The record and the closing value: one JSON document, not two values.
        let values = try #require(try json(dry.stdout) as? [[String: Any]], "\(dry.stdout)")
        #expect(values.count == 2)
        #expect(values[0]["moved"] as? Bool == true && values[0]["saved"] as? Bool == false)
        #expect(values[1]["saved"] as? Bool == false)
        let table = try MIAdmin.as_("mkhan", config: config, ["move jdoe/A asmith"], extra: ["--dry-run"])
        #expect(table.lines.last == "dry run: nothing was saved")
        let atomic = try MIAdmin.as_("mkhan", config: config, format: "json", ["move jdoe/A asmith", "move jdoe/Nope asmith"],
                                     extra: ["--atomic"])
        #expect(atomic.status == 1)
        let last = try #require((try json(atomic.stdout) as? [[String: Any]])?.last, "\(atomic.stdout)")
        #expect(last["saved"] as? Bool == false)
        #expect(try sqlite(try fixture.storePath(config), "SELECT owner FROM forms") == "jdoe")
    }

    /// docs/security.md: a line *mentioning* a password, secret, token or credential is not
    /// stored (`comment 1 my password is hunter2` is not).
    @Test func historyLeavesOutLinesThatMentionASecretWord() throws {
        let home = try TempDir.make()
        let term = try TerminalSession(uid: "mkhan", home: home)
        try term.waitFor(prompt)
        try term.type("forms --template 'Pump'")
        try term.press("Enter")
        try term.waitFor("(0 rows)")
        try term.type("help --Secret=s3cr3t")
        try term.press("Enter")
        try term.waitFor("error:")
        try term.type("comment 1 'my password is hunter2'")
        try term.press("Enter")
        try term.waitFor("no form 1")
        try term.press("Up")
        #expect(try term.currentLine(prompt: prompt) == "forms --template 'Pump'")
        try term.press("C-u", "C-d")
        try term.waitFor("[exited 0]")
        let history = try String(contentsOfFile: home + "/.local/state/miadmin/history-mkhan", encoding: .utf8)
        #expect(history == "forms --template 'Pump'\n")
        var info = stat()
        #expect(stat(home + "/.local/state/miadmin/history-mkhan", &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}
