import Foundation
import MITestSupport
import Testing

/// Through the built binary: bulk move/submit/comment with a preview
/// and one confirmation (tmux), `undo`, `--dry-run` per command, `--yes` and `--atomic` in
/// scripts, and the warning when a move finds the form moved since the session showed it.
/// The sample tree: jdoe holds 'Pump station 4' and 'Valve check – north' (incomplete) and
/// 'Generator monthly' (completed); asmith holds 'Pump station 4' and 'Pump station 4 (2)'.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct BulkChangeTests {
    let fixture = Fixture.shared
    let prompt = "mkhan@foreman> "

    /// Every live form as `owner/name state`, sorted.
    func forms(_ config: String) throws -> String {
        try sqlite(try fixture.storePath(config), "SELECT owner || '/' || name || ' ' || state FROM forms "
                   + "WHERE trashed_at IS NULL ORDER BY owner, name")
    }

    func id(_ config: String, _ owner: String, _ name: String) throws -> String {
        try sqlite(try fixture.storePath(config), "SELECT id FROM forms WHERE owner = '\(owner)' AND name = '\(name)'")
    }

    /// Waits until `text` shows `count` times on the screen (a preview and the result print the
    /// same footer); returns the screen.
    @discardableResult
    func waitFor(_ term: TerminalSession, _ text: String, times count: Int) throws -> String {
        let end = Date().addingTimeInterval(20)
        var screen = ""
        while Date() < end {
            screen = try term.screen()
            if screen.components(separatedBy: text).count - 1 >= count { return screen }
            usleep(100_000)
        }
        throw ScreenNeverShowed(description: "the screen never showed \"\(text)\" \(count) times:\n\(screen)")
    }

    struct ScreenNeverShowed: Error, CustomStringConvertible { let description: String }

    @Test func aBulkMoveAtThePromptPreviewsAsksOnceAndUndoTakesItBack() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let start = try forms(config)
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("move 'jdoe/*' asmith --note 'jdoe on sick leave'")
        let asked = try term.waitFor("move 2 form(s) matching 'jdoe/*' to asmith? [y/N] ")
        // The preview lists what will happen, with the names after renames, before the question.
        let preview = asked.components(separatedBy: "jdoe on sick leave'")[1].components(separatedBy: "move 2 form(s) matching")[0]
        #expect(preview.contains("Pump station 4 (3)"), "\(asked)")
        #expect(preview.contains("Valve check – north"))
        #expect(preview.contains("note: preview: nothing is changed until you answer"), "titled as a preview: \(asked)")
        #expect(try forms(config) == start, "nothing moves before the answer")
        try term.enter("y")
        try waitFor(term, "(2 rows)", times: 2)
        try term.waitFor("move: done for 2 form(s)")
        let moved = try forms(config)
        #expect(moved.contains("asmith/Pump station 4 (3) incomplete"), "\(moved)")
        #expect(moved.contains("asmith/Valve check – north incomplete"))
        #expect(moved.contains("jdoe/Generator monthly completed"))

        try term.press("C-l")
        try term.enter("undo")
        try term.waitFor("give 2 form(s) back to where the last move took them from? [y/N] ")
        try term.enter("y")
        try waitFor(term, "(2 rows)", times: 2)
        #expect(try forms(config) == start)
        try term.press("C-l")
        try term.enter("undo")
        try term.waitFor("error: nothing to undo")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// While the bulk move's question waits, the console holds no write lock: another console's
    /// move goes through (it would otherwise give up after the busy timeout with "The store is
    /// busy"). The answer then makes the moves the preview showed; a form the other console moved
    /// meanwhile is refused as changed since it was chosen, and stays where the other console put it.
    @Test func anotherConsolesMoveGoesThroughWhileTheQuestionWaits() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let valve = try id(config, "jdoe", "Valve check – north")
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("move 'jdoe/*' asmith")
        try term.waitFor("move 2 form(s) matching 'jdoe/*' to asmith? [y/N] ")
        let other = try MIAdmin.as_("lchen", config: config, ["move \(valve) sobrien"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try forms(config).contains("sobrien/Valve check – north incomplete"))
        try term.enter("y")
        let screen = try term.waitFor("the rest were left as they were").replacingOccurrences(of: "\n", with: "")
        #expect(screen.contains("form \(valve) 'Valve check – north'"), "\(screen)")
        let after = try forms(config)
        #expect(after.contains("asmith/Pump station 4 (3) incomplete"), "the other form was moved: \(after)")
        #expect(after.contains("sobrien/Valve check – north incomplete"), "the other console's move stands: \(after)")
        #expect(!after.contains("jdoe/Pump station 4"))
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// A form the store would refuse (an incomplete form named to `submit`) is named before the
    /// question; the answer submits the other; a dry run in a script exits 1 as the real run would.
    @Test func thePreviewNamesWhatWouldFailBeforeTheQuestion() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let pump = try id(config, "jdoe", "Pump station 4")
        let generator = try id(config, "jdoe", "Generator monthly")
        let dry = try MIAdmin.as_("mkhan", config: config, ["submit \(pump) \(generator) --dry-run"])
        #expect(dry.status == 1, "\(dry.stdout)\(dry.stderr)")
        #expect(dry.stderr.contains("submit would fail for form \(pump) 'Pump station 4' of jdoe"), "\(dry.stderr)")
        #expect(dry.stderr.contains("dry run: nothing was saved"), "\(dry.stderr)")
        #expect(try forms(config).contains("jdoe/Generator monthly completed"))

        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("submit \(pump) \(generator)")
        let asked = try term.waitFor("submit 1 form(s)? Only a foreman's 'reopen' takes them back. [y/N] ")
            .replacingOccurrences(of: "\n", with: "")
        #expect(asked.contains("warning: submit would fail for form \(pump) 'Pump station 4' of jdoe"), "\(asked)")
        #expect(try forms(config).contains("jdoe/Generator monthly completed"), "nothing changes before the answer")
        try term.enter("y")
        try term.waitFor("submit: done for 1 form(s)")
        try term.waitFor("1 of 2 form(s) were left as they were")
        let after = try forms(config)
        #expect(after.contains("jdoe/Generator monthly submitted"), "\(after)")
        #expect(after.contains("jdoe/Pump station 4 incomplete"), "\(after)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func undoIsRefusedWhenAFormChangedSince() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("move 'jdoe/*' asmith --yes")
        try term.waitFor("(2 rows)")
        let valve = try id(config, "asmith", "Valve check – north")
        let other = try MIAdmin.as_("lchen", config: config, ["move \(valve) sobrien"])
        #expect(other.status == 0, "\(other.stderr)")
        let before = try forms(config)
        try term.press("C-l")
        try term.enter("undo")
        let screen = try term.waitFor("nothing was undone")
        #expect(screen.contains("cannot undo: form \(valve) 'Valve check – north' was moved to sobrien since the move"),
                "\(screen)")
        #expect(try forms(config) == before)
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// The foreman listed the form; support moved it; the foreman's move says so.
    @Test func aMoveOfAFormMovedSinceTheSessionListedItWarns() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let pump = try id(config, "jdoe", "Pump station 4")
        let term = try TerminalSession(uid: "mkhan", config: config)
        try term.waitFor(prompt)
        try term.enter("forms --owner jdoe")
        try term.waitFor("(3 rows)")
        let support = try MIAdmin.as_("lchen", config: config, ["move \(pump) asmith"])
        #expect(support.status == 0, "\(support.stderr)")
        try term.enter("move \(pump) zangstrom")
        // The pane is 120 columns wide: the warning wraps.
        let screen = try term.waitFor("expires").replacingOccurrences(of: "\n", with: "")
        #expect(screen.contains("warning: form \(pump) 'Pump station 4 (3)' was moved since this session last showed it "
                                + "(then jdoe's, version 1); this move took it from asmith"), "\(screen)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    @Test func scriptsNeedYesTakeDryRunAndAtomicMakesABulkOneTransaction() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let start = try forms(config)
        let refused = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refusing without confirmation in a script; add --yes"), "\(refused.stderr)")
        #expect(try forms(config) == start)

        let dry = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump*' asmith --dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Pump station 4 (3)"), "\(dry.stdout)")
        #expect(dry.stdout.contains("dry run: nothing was saved") || dry.stderr.contains("dry run: nothing was saved"))
        #expect(try forms(config) == start)

        // Under --atomic the bulk move joins the run's transaction: a later failing line undoes it.
        let atomic = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith --yes", "move 99999 asmith"],
                                     extra: ["--atomic"])
        #expect(atomic.status != 0)
        #expect(try forms(config) == start, "\(atomic.stdout)\(atomic.stderr)")

        let done = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith --yes"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try forms(config).contains("asmith/Pump station 4 (3) incomplete"))
    }

    @Test func submitAndCommentTakeASelectionAndEveryChangingCommandHasDryRun() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let store = try fixture.storePath(config)
        let generator = try id(config, "jdoe", "Generator monthly")
        let audit = try sqlite(store, "SELECT COUNT(*) FROM audit")
        for line in ["comment --owner jdoe 'Checked on site' --dry-run", "submit --owner jdoe --dry-run",
                     "submit \(generator) --dry-run", "comment \(generator) fine --dry-run",
                     "policy set expiry-days 30 --dry-run",
                     "move 'jdoe/*' asmith --dry-run"] {
            let result = try MIAdmin.as_("mkhan", config: config, [line])
            #expect(result.status == 0, "\(line): \(result.stderr)")
            #expect(result.stdout.contains("dry run: nothing was saved") || result.stderr.contains("dry run: nothing was saved"),
                    "\(line): \(result.stdout) \(result.stderr)")
        }
        #expect(try sqlite(store, "SELECT COUNT(*) FROM audit") == audit, "a --dry-run saved something")
        let comment = try MIAdmin.as_("mkhan", config: config, ["comment --owner jdoe 'Checked on site' --yes"])
        #expect(comment.status == 0, "\(comment.stderr)")
        #expect(try sqlite(store, "SELECT text FROM foreman_comments WHERE author = 'mkhan'") == "Checked on site")
        let submit = try MIAdmin.as_("mkhan", config: config, ["submit 'jdoe/*' --yes"])
        #expect(submit.status == 0, "\(submit.stderr)")
        #expect(try forms(config).contains("jdoe/Generator monthly submitted"))
        // Reopen and restore take --dry-run too.
        let reopen = try MIAdmin.as_("mkhan", config: config, ["reopen \(generator) --note typo --dry-run"])
        #expect(reopen.status == 0, "\(reopen.stderr)")
        #expect(try forms(config).contains("jdoe/Generator monthly submitted"))
    }
}
