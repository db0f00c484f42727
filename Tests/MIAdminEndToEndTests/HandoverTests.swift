import Foundation
import MITestSupport
import Testing

/// A sick technician's work to several: `move 'jdoe/*' a,b` in turn, `--balance` by workload,
/// one question, one `undo` for the whole handover. The sample tree: jdoe has two incomplete
/// forms ('Pump station 4', 'Valve check – north'), asmith two, u00001 none.
@Suite struct HandoverTests {
    let fixture = Fixture.shared

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    @Test func formsAreSharedInTurnOrByWorkloadAndOneUndoTakesThemBack() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let inTurn = try MIAdmin.as_("mkhan", config: config, format: "csv", ["move 'jdoe/*' asmith,u00001 --dry-run"])
        #expect(inTurn.status == 0, "\(inTurn.stderr)")
        #expect(inTurn.lines.first == "id,from,to,was,name,renamed,expires")
        #expect(inTurn.lines.dropFirst().prefix(2).map { $0.split(separator: ",")[2] } == ["asmith", "u00001"], "\(inTurn.stdout)")

        // --balance: asmith holds two incomplete forms, u00001 none: both go to u00001.
        let balanced = try MIAdmin.as_("mkhan", config: config, format: "json",
                                       ["move 'jdoe/*' asmith,u00001 --balance --yes", "undo --yes", "forms --owner jdoe --state incomplete"])
        #expect(balanced.status == 0, "\(balanced.stderr)")
        let values = try JSONSerialization.jsonObject(with: Data(balanced.stdout.utf8)) as? [Any] ?? []
        let moved = values.first as? [[String: Any]] ?? []
        #expect(moved.compactMap { $0["to"] as? String } == ["u00001", "u00001"], "\(values)")
        let undone = values.dropFirst().first as? [[String: Any]] ?? []
        #expect(undone.count == 2 && undone.allSatisfy { $0["to"] as? String == "jdoe" }, "one undo for both: \(undone)")
        #expect((values.last as? [[String: Any]])?.count == 2, "jdoe has both back")

        let one = try MIAdmin.as_("mkhan", config: config, ["move 12 asmith,u00001"])
        #expect(one.status == 1 && one.stderr.contains("one form goes to one technician"), "\(one.stderr)")
        let single = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith --balance"])
        #expect(single.status == 1 && single.stderr.contains("name two or more"), "\(single.stderr)")
    }

    /// The hints after a refused handover come from the parse: a space after the comma is named
    /// as the fault, and a line that would fail is never suggested (quoting the words into a
    /// form's name is offered only when such a form exists).
    @Test func aRefusedHandoverGetsTheHintItsParseCallsFor() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let spaced = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith, u00001"])
        #expect(spaced.status == 1)
        #expect(spaced.stderr.contains("a space after a comma splits the list, write it without, as in: move 'jdoe/*' asmith,u00001"),
                "\(spaced.stderr)")
        #expect(!spaced.stderr.contains("quoted"), "\(spaced.stderr)")
        let before = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith ,u00001"])
        #expect(before.stderr.contains("as in: move 'jdoe/*' asmith,u00001"), "\(before.stderr)")
        for (line, refusal) in [("move 'jdoe/*' asmith,asmith", "a technician is named twice"),
                                ("move 'jdoe/*' asmith --balance", "name two or more")] {
            let result = try MIAdmin.as_("mkhan", config: config, [line])
            #expect(result.status == 1 && result.stderr.contains(refusal), "\(line): \(result.stderr)")
            #expect(!result.stderr.contains("quoted"), "\(line): \(result.stderr)")
        }
        let split = try MIAdmin.as_("mkhan", config: config, ["show jdoe/Pump station 4"])
        #expect(split.stderr.contains("must be quoted, as in: show 'jdoe/Pump station 4'"), "\(split.stderr)")
        let noSuchForm = try MIAdmin.as_("mkhan", config: config, ["show jdoe/Pump station 99"])
        #expect(noSuchForm.status == 1 && !noSuchForm.stderr.contains("quoted"), "\(noSuchForm.stderr)")
    }
}
