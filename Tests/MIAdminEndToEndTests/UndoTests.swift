import Foundation
import MITestSupport
import Testing

/// `undo` is the inverse of the move it undoes, through the built binary on both engines: the
/// forms get back the expiry they had (a move restarts the clock, its undo must not restart it
/// again), the audit rows of the move and of the undo record the expiry each set, and each
/// technician gets one notice for a bulk move and one "undone" notice for its undo, naming
/// every form of it.
/// The sample tree: jdoe holds 'Pump station 4' and 'Valve check – north' (incomplete).
@Suite(.tags(.endToEnd, .ldap, .postgres), .serialized) struct UndoTests {
    let fixture = Fixture.shared

    enum Engine: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    func store(_ engine: Engine) throws -> String {
        switch engine {
        case .sqlite: try fixture.store(importing: try Paths.copyOfSampleTree())
        case .postgres: try fixture.postgresStoreWithSampleTree().config
        }
    }

    /// jdoe's forms as `name expires` lines, from `forms` as CSV.
    func expiries(_ config: String) throws -> [String] {
        let listed = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --owner jdoe --state incomplete"])
        try #require(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(whereSeparator: \.isNewline).map(String.init)
        let header = try #require(lines.first).split(separator: ",").map(String.init)
        let name = try #require(header.firstIndex(of: "name"))
        let expires = try #require(header.firstIndex(of: "expires"))
        return lines.dropFirst().map { line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return "\(cells[name]) \(cells[expires])"
        }.sorted()
    }

    @Test(arguments: Engine.allCases) func aMoveAndItsUndoLeaveTheExpiryAsItWas(engine: Engine) throws {
        let config = try store(engine)
        let before = try expiries(config)
        #expect(before.count == 2, "\(before)")
        let result = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith --yes", "undo --yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try expiries(config) == before, "the undo gives the forms back the clock they had")
    }

    @Test(arguments: Engine.allCases) func theAuditRowsRecordTheExpiryAndTheUndoSaysUndone(engine: Engine) throws {
        let config = try store(engine)
        let result = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Valve*' asmith --yes", "undo --yes"])
        #expect(result.status == 0, "\(result.stderr)")
        let audit = try MIAdmin.as_("mkhan", config: config, format: "json", ["audit --command move"])
        #expect(audit.status == 0, "\(audit.stderr)")
        // Two rows (the move and its undo), each with the expiry before and after.
        #expect(audit.stdout.components(separatedBy: "expires").count - 1 == 4, "\(audit.stdout)")

        for uid in ["jdoe", "asmith"] {
            let notices = try MIAdmin.as_("mkhan", config: config, ["notices \(uid) --all"])
            #expect(notices.status == 0, "\(notices.stderr)")
            // The sample tree brings notices of its own: only the moved form's count.
            let valve = notices.stdout.split(whereSeparator: \.isNewline).filter { $0.contains("Valve check – north") }
            #expect(valve.filter { $0.contains("was undone") }.count == 1, "\(uid): \(notices.stdout)")
            #expect(valve.count == 2, "the move's notice and the undo's: \(uid): \(notices.stdout)")
        }
    }

    /// A handover of jdoe's two forms to asmith and u00001 and its undo: jdoe hears once of the
    /// move and once of the undo, each naming both forms; each receiver once of each, naming
    /// his form. Four changes of forms, four notices, not one per form and technician.
    @Test(arguments: Engine.allCases) func aBulkMoveAndItsUndoTellEachTechnicianOnceEach(engine: Engine) throws {
        let config = try store(engine)
        let result = try MIAdmin.as_("mkhan", config: config,
                                     ["move 'jdoe/*' asmith,u00001 --yes --note 'jdoe on sick leave'", "undo --yes"])
        #expect(result.status == 0, "\(result.stderr)")
        func moveNotices(_ uid: String) throws -> [String] {
            let notices = try MIAdmin.as_("mkhan", config: config, format: "json", ["notices \(uid) --all"])
            #expect(notices.status == 0, "\(notices.stderr)")
            let rows = try JSONSerialization.jsonObject(with: Data(notices.stdout.utf8)) as? [[String: Any]] ?? []
            // The sample tree brings notices of its own (import): only the moves' count, by their
            // reasons (the undo's is its default).
            return rows.compactMap { $0["text"] as? String }
                .filter { $0.hasSuffix(": jdoe on sick leave") || $0.hasSuffix(": undo of a move by mkhan") }
        }
        let jdoe = try moveNotices("jdoe")
        #expect(jdoe.count == 2, "one for the move, one for the undo: \(jdoe)")
        #expect(jdoe.first == "2 forms were reassigned by foreman mkhan ('Pump station 4' to asmith as 'Pump station 4 (3)', "
                + "'Valve check – north' to u00001): jdoe on sick leave", "\(jdoe)")
        #expect(jdoe.last?.hasPrefix("The moves of 2 forms away from you were undone: they are yours again, by foreman mkhan (") == true,
                "\(jdoe)")
        for (uid, form) in [("asmith", "Pump station 4 (3)"), ("u00001", "Valve check – north")] {
            let told = try moveNotices(uid)
            #expect(told.count == 2, "\(uid): \(told)")
            #expect(told.first?.hasPrefix("Form '\(form)'") == true && told.first?.contains("was given to you from jdoe") == true,
                    "\(uid): \(told)")
            #expect(told.last?.contains("to you was undone: it went back to jdoe") == true, "\(uid): \(told)")
        }
    }
}
