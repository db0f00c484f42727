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
}
