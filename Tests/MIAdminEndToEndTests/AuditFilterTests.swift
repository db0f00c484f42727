import Foundation
import MITestSupport
import Testing

/// `audit --command` takes the operations the store audits, several at once; a name that could
/// match no row is refused with the list instead of answering "(0 rows)".
@Suite struct AuditFilterTests {
    let fixture = Fixture.shared

    @Test func commandTakesAListAndRefusesUnknownNames() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let moved = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith"])
        #expect(moved.status == 0, "\(moved.stderr)")

        let both = try MIAdmin.as_("mkhan", config: config, format: "json", ["audit --command move,import"])
        #expect(both.status == 0, "\(both.stderr)")
        let commands = Set(((try JSONSerialization.jsonObject(with: Data(both.stdout.utf8)) as? [[String: Any]]) ?? [])
            .compactMap { $0["command"] as? String })
        #expect(commands == ["move", "import.insert", "import.notices"], "a family takes its members: \(both.stdout)")

        let bogus = try MIAdmin.as_("mkhan", config: config, ["audit --command move,bogus"])
        #expect(bogus.status == 1 && bogus.stdout.isEmpty)
        #expect(bogus.stderr.contains("no operation 'bogus' is audited; known: comment, deliveries, deliveries.dismiss, deliveries.retry, expire, import,"),
                "\(bogus.stderr)")
        let typo = try MIAdmin.as_("mkhan", config: config, ["audit --command mvoe"])
        #expect(typo.stderr.contains("(did you mean 'move'?)"), "\(typo.stderr)")
    }
}
