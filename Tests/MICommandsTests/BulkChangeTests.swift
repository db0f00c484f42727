import Foundation
import MICommands
import MIStore
import Testing

/// Bulk changes with a preview, `undo` and the "moved since" warning, on a real SQLite
/// store (``CrewRuleTests/Site``: jdoe holds 'Pump station 4' and 'Valve check – north'
/// incomplete and 'Generator monthly' completed; asmith holds 'Pump station 4' and
/// 'Pump station 4 (2)'; crews Kolonne Nord (mkhan: jdoe, zangstrom) and Kolonne Süd).
@Suite("Bulk changes")
struct BulkChangeTests {
    typealias Site = CrewRuleTests.Site

    /// A session at the prompt: it asks `confirmer`'s questions, recorded in `asked` with how many
    /// rows had been listed when it was asked.
    final class Prompt {
        let session: Session
        let output = RecordingSink()
        var asked: [(question: String, rowsShown: Int, warningsShown: Int)] = []
        var answer = true
        /// Runs while the person "thinks": another console's change between preview and answer.
        var meanwhile: () throws -> Void = {}

        init(_ site: Site, _ uid: String) throws {
            (session, _) = try site.session(uid)
            session.assumeYes = false
            session.confirmer = { [unowned self] question in
                asked.append((question, output.rows.count, output.warnings.count))
                try? meanwhile()
                return answer
            }
        }

        func run(_ words: [String]) throws {
            let (command, name) = try CommandHarness.parse(words)
            try session.run(command, named: name, output: output)
        }
    }

    func forms(_ site: Site) throws -> [String] {
        var lines: [String] = []
        try site.unscoped().forEachForm { lines.append("\($0.owner)/\($0.name) \($0.state)") }
        return lines.sorted()
    }

    func names(_ rows: [[Value]], column: Int) -> [String] {
        rows.compactMap { if case .string(let text) = $0[column] { text } else { nil } }
    }

    @Test func aBulkMovePreviewsTheNamesAfterRenamesAsksOnceThenMoves() throws {
        let site = try Site()
        let prompt = try Prompt(site, "lchen")
        try prompt.run(["move", "jdoe/*", "asmith", "--note", "jdoe on sick leave"])
        // One question, after the two preview rows, which carry the names the store gives.
        #expect(prompt.asked.count == 1)
        #expect(prompt.asked.first?.question == "move 2 form(s) matching 'jdoe/*' to asmith?")
        #expect(prompt.asked.first?.rowsShown == 2)
        #expect(names(Array(prompt.output.rows.prefix(2)), column: 4) == ["Pump station 4 (3)", "Valve check – north"])
        #expect(prompt.output.rows.count == 4)
        #expect(names(Array(prompt.output.rows.suffix(2)), column: 4) == ["Pump station 4 (3)", "Valve check – north"])
        let after = try forms(site)
        #expect(after.contains("asmith/Pump station 4 (3) incomplete"))
        #expect(after.contains("asmith/Valve check – north incomplete"))
        // The completed form is not a move's: left with jdoe.
        #expect(after.contains("jdoe/Generator monthly completed"))
        #expect(!after.contains { $0.hasPrefix("jdoe/") && $0.hasSuffix("incomplete") })
    }

    @Test func answeringNoOrRunningDryOrUnconfirmedInAScriptChangesNothing() throws {
        let site = try Site()
        let before = try site.snapshot()
        let no = try Prompt(site, "lchen")
        no.answer = false
        #expect(throws: Session.Cancelled.self) { try no.run(["move", "jdoe/*", "asmith"]) }
        #expect(try site.snapshot() == before)

        let dry = try Prompt(site, "lchen")
        try dry.run(["move", "jdoe/Pump*", "asmith", "--dry-run"])
        #expect(dry.asked.isEmpty)
        #expect(names(dry.output.rows, column: 4) == ["Pump station 4 (3)"])
        #expect(dry.output.messages == ["dry run: nothing was saved"])
        #expect(try site.snapshot() == before)

        // A script: nobody to ask, so a bulk change needs --yes.
        let (script, output) = try site.session("lchen")
        script.assumeYes = false
        let (command, name) = try CommandHarness.parse(["move", "jdoe/*", "asmith"])
        #expect { try script.run(command, named: name, output: output) } throws: { error in
            "\(error)".contains("refusing without confirmation in a script; add --yes")
        }
        #expect(try site.snapshot() == before)
        _ = try site.run("lchen", ["move", "jdoe/*", "asmith", "--yes"])
        #expect(try site.snapshot() != before)
    }

    @Test func aNameGlobMovesOnlyTheFormsItMatches() throws {
        let site = try Site()
        _ = try site.run("lchen", ["move", "asmith/pump*", "jdoe", "--yes"])
        let after = try forms(site)
        #expect(after.contains("jdoe/Pump station 4 (2) incomplete"))
        #expect(after.contains("jdoe/Pump station 4 (3) incomplete"))
        #expect(after.contains("jdoe/Valve check – north incomplete"))
        #expect(!after.contains { $0.hasPrefix("asmith/") && $0.hasSuffix("incomplete") })
    }

    /// The selection is read through the same listing as `forms`: the crew scope limits a glob,
    /// and an owner outside the crews is refused before anything changes.
    @Test func theCrewRuleHoldsForEveryFormOfABulkMove() throws {
        let site = try Site()
        let before = try site.snapshot()
        #expect { _ = try site.run("mkhan", ["move", "asmith/*", "jdoe", "--yes"]) } throws: { $0.isCrewRefusal }
        #expect(try site.snapshot() == before)
        let output = try site.run("mkhan", ["move", "*/*", "zangstrom", "--yes"])
        #expect(Set(names(output.rows, column: 1)) == ["jdoe"])
        #expect(output.rows.count == 2)
    }

    /// A form another console moved between the preview and the answer is not moved: the bulk
    /// move stops there, says how many it did, and `undo` takes back just those.
    @Test func aFormChangedAfterThePreviewStopsTheBulkMoveThere() throws {
        let site = try Site()
        let start = try forms(site)
        let prompt = try Prompt(site, "lchen")
        prompt.meanwhile = { _ = try site.run("lchen", ["move", "jdoe/Valve check – north", "sobrien"]) }
        #expect { try prompt.run(["move", "jdoe/*", "asmith"]) } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("move stopped at form ") && text.contains("'Valve check – north' of jdoe: ")
                && text.contains("1 of 2 form(s) done (listed above); the rest were left as they were")
        }
        let after = try forms(site)
        #expect(after.contains("asmith/Pump station 4 (3) incomplete"))
        #expect(after.contains("sobrien/Valve check – north incomplete"))
        try prompt.run(["undo"])
        let undone = try forms(site)
        #expect(undone.contains("jdoe/Pump station 4 incomplete"))
        #expect(undone.contains("sobrien/Valve check – north incomplete"))
        #expect(undone.count == start.count)
    }

    /// A form named by id is taken whatever its state, so the store may refuse it: the preview
    /// names it before the question, the question counts only the others, the answer changes
    /// those, and the run still fails, saying how many were left.
    @Test func aPreviewNamesTheFormsTheStoreWouldRefuseBeforeTheQuestion() throws {
        let site = try Site()
        let prompt = try Prompt(site, "slead")
        #expect { try prompt.run(["submit", "\(site.northIncomplete)", "\(site.northCompleted)"]) } throws: { error in
            "\(error)" == "1 of 2 form(s) were left as they were: the store refused them (see the warnings above); 1 done"
        }
        #expect(prompt.asked.map(\.question) == ["submit 1 form(s)? Only a foreman's 'reopen' takes them back."])
        #expect(prompt.asked.first?.rowsShown == 1)
        #expect(prompt.asked.first?.warningsShown == 1)
        #expect(prompt.output.warnings == ["submit would fail for form \(site.northIncomplete) 'Pump station 4' of jdoe: "
                                           + "Form \(site.northIncomplete) 'Pump station 4' of jdoe is incomplete; "
                                           + "only completed forms can be submitted."])
        #expect(prompt.output.messages.contains("submit: done for 1 form(s)"))
        let after = try forms(site)
        #expect(after.contains("jdoe/Generator monthly submitted"))
        #expect(after.contains("jdoe/Pump station 4 incomplete"))
    }

    /// A dry run lists the same refusals and fails as the real run would; nothing is saved, and a
    /// run where every form is refused asks nothing.
    @Test func aDryRunFailsWhereTheRealRunWouldAndAllRefusedAsksNothing() throws {
        let site = try Site()
        let before = try site.snapshot()
        let dry = try Prompt(site, "slead")
        #expect { try dry.run(["submit", "\(site.northIncomplete)", "\(site.northCompleted)", "--dry-run"]) } throws: { error in
            "\(error)" == "1 of 2 form(s) cannot be changed by submit (see the warnings above); dry run: nothing was saved"
        }
        #expect(dry.asked.isEmpty)
        #expect(dry.output.rows.count == 1)
        #expect(dry.output.warnings.count == 1)
        #expect(try site.snapshot() == before)

        let none = try Prompt(site, "slead")
        #expect { try none.run(["submit", "\(site.northIncomplete)", "\(site.southIncomplete)"]) } throws: { error in
            "\(error)" == "nothing to submit: none of the 2 form(s) can be changed (see the warnings above)"
        }
        #expect(none.asked.isEmpty)
        #expect(none.output.warnings.count == 2)
        #expect(try site.snapshot() == before)
    }

    @Test func undoGivesTheFormsBackUnderTheirNames() throws {
        let site = try Site()
        let start = try forms(site)
        let prompt = try Prompt(site, "lchen")
        try prompt.run(["move", "jdoe/*", "asmith"])
        #expect(try forms(site) != start)
        try prompt.run(["undo"])
        #expect(prompt.asked.count == 2)
        #expect(try forms(site) == start)
        #expect { try prompt.run(["undo"]) } throws: { "\($0)".hasPrefix("nothing to undo") }
    }

    @Test func undoIsRefusedWhenAFormChangedSinceAndChangesNothing() throws {
        let site = try Site()
        let (session, output) = try site.session("lchen")
        let (move, _) = try CommandHarness.parse(["move", "jdoe/*", "asmith", "--yes"])
        try session.run(move, named: "move", output: output)
        // Somebody else moves one of them on.
        _ = try site.run("lchen", ["move", "asmith/Valve check – north", "sobrien"])
        let before = try site.snapshot()
        let (undo, _) = try CommandHarness.parse(["undo", "--yes"])
        #expect { try session.run(undo, named: "undo", output: output) } throws: { error in
            "\(error)".contains("was moved to sobrien since the move; nothing was undone")
        }
        #expect(try site.snapshot() == before)
    }

    /// The foreman listed the form as jdoe's; support moved it to asmith; the
    /// foreman's move of it says so.
    @Test func aMoveOfAFormMovedSinceTheSessionShowedItWarns() throws {
        let site = try Site()
        let foreman = try Prompt(site, "slead")
        try foreman.run(["forms", "--owner", "jdoe"])
        _ = try site.run("lchen", ["move", "\(site.northIncomplete)", "asmith"])
        try foreman.run(["move", "\(site.northIncomplete)", "zangstrom"])
        #expect(foreman.output.warnings.count == 1)
        #expect(foreman.output.warnings.first?.contains("was moved since this session last showed it (then jdoe's") == true)
        #expect(foreman.output.warnings.first?.contains("this move took it from asmith") == true)
        // Its own move is what it showed last: no warning the next time.
        try foreman.run(["move", "\(site.northIncomplete)", "jdoe"])
        #expect(foreman.output.warnings.count == 1)
    }

    @Test func submitAndCommentTakeASelection() throws {
        let site = try Site()
        let output = try site.run("slead", ["submit", "--owner", "jdoe"])
        #expect(output.rows.count == 1)
        #expect(try forms(site).contains("jdoe/Generator monthly submitted"))
        let commented = try site.run("slead", ["comment", "asmith/*", "Checked on site", "--dry-run"])
        #expect(names(commented.rows, column: 2) == ["Generator weekly"])
        #expect(commented.messages == ["dry run: nothing was saved"])
        let comments = try site.unscoped().form(.id(site.southCompleted)).foremanComments
        #expect(comments.isEmpty)
        let done = try site.run("slead", ["comment", "--owner", "asmith", "Checked on site"])
        #expect(done.rows.count == 1)
        #expect(try site.unscoped().form(.id(site.southCompleted)).foremanComments.map(\.text) == ["Checked on site"])
    }

    @Test func dryRunOfASingleChangeSavesNothing() throws {
        let site = try Site()
        let before = try site.snapshot()
        for line in [["move", "\(site.northIncomplete)", "zangstrom", "--dry-run"],
                     ["comment", "\(site.northCompleted)", "fine", "--dry-run"],
                     ["submit", "\(site.northCompleted)", "--dry-run"],
                     ["policy", "set", "expiry-days", "30", "--dry-run"]] {
            let output = try site.run("slead", line)
            #expect(output.messages.contains("dry run: nothing was saved"), "\(line)")
            #expect(!output.records.isEmpty, "\(line)")
        }
        #expect(try site.snapshot() == before)
    }

    @Test func aPatternIsParsedApartFromAForm() {
        #expect(FormPattern(argument: "jdoe/*") == .pattern(owner: "jdoe", name: "*"))
        #expect(FormPattern(argument: "jdoe/Pump*") == .pattern(owner: "jdoe", name: "Pump*"))
        #expect(FormPattern(argument: "12") == .form(.id(12)))
        #expect(FormPattern(argument: "jdoe/Pump station 4") == .form(.path(owner: "jdoe", name: "Pump station 4")))
        #expect(FormPattern(argument: "nonsense") == nil)
    }
}
