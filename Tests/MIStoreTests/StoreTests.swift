import Foundation
import GRDB
import Testing
@testable import MIStore

@Suite("Store file, listing and audit")
struct StoreTests {
    @Test func busyStoreThrowsBusyAfterTheTimeout() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, ["jdoe/Pump"])
        let impatient = try makeStore(dir, busyTimeout: 0.2)
        // Another process holds the write lock.
        let holder = try DatabaseQueue(path: dir.path + "/store.sqlite")
        try holder.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let started = Date()
            #expect { try impatient.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan") } throws: { error in
                let error = error as! StoreError
                return error.kind == .busy && error.sqliteCode == 5 && error.message.contains("0.2 s")
            }
            #expect(Date().timeIntervalSince(started) >= 0.15)
            // Reads still work while another process writes (WAL).
            #expect(try impatient.names(of: "jdoe") == ["Done", "Pump"])
            try db.execute(sql: "ROLLBACK")
        }
        _ = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        #expect(try impatient.names(of: "asmith") == ["Pump"])
    }

    /// A change whose transaction SQLite ended (as it does itself after some errors) runs
    /// nothing more outside a transaction: its next statement fails, as inside GRDB's own
    /// transaction blocks, and the store works on.
    @Test func aChangeWhoseTransactionEndedRunsNoFurtherStatement() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, ["jdoe/Pump"])
        #expect {
            try store.write { db in
                try db.execute(literal: "ROLLBACK")
                try db.execute(literal: "UPDATE forms SET name = 'Valve' WHERE owner = 'jdoe' AND name = 'Pump'")
            }
        } throws: { ($0 as! StoreError).message.contains("Transaction was aborted") }
        #expect(try store.names(of: "jdoe") == ["Done", "Pump"])
        #expect(try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan").newName == "Pump")
    }

    @Test func opensInWALModeWithSchema() throws {
        let dir = try TempDir()
        let store = try makeStore(dir)
        let mode = try (store.engine as! SQLiteEngine).dbPool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        // A second open of the same file (another process) finds the schema in place.
        let again = try makeStore(dir)
        #expect(try again.countForms() == 0)
        #expect { try FormStore(path: dir.path + "/no/such/dir/store.sqlite") } throws: { ($0 as! StoreError).kind == .io }
    }

    @Test(arguments: TestEngine.allCases) func liveNamesAreUniquePerOwner(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "asmith/Pump"])
        #expect { try store.write { try $0.execute(literal: "UPDATE forms SET owner = 'asmith' WHERE owner = 'jdoe' AND name = 'Pump'") } } throws: {
            ($0 as! StoreError).kind == .conflict
        }
        // A trashed form no longer holds its name.
        try store.write { try $0.execute(literal: "UPDATE forms SET trashed_at = 1 WHERE owner = 'asmith'") }
        #expect(try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan").newName == "Pump")
    }

    @Test(arguments: TestEngine.allCases) func listingFilters(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock(try Timestamp("2026-11-20T12:00:00Z").date)
        let store = try makeStore(dir, engine: engine, clock: clock)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        _ = try store.importTree(at: dir.sub("Documents"), actor: "importer")

        #expect(try store.summaries().map { "\($0.owner)/\($0.name)" } == [
            "asmith/Pump station 4", "asmith/Pump station 4 (2)",
            "jdoe/Generator monthly", "jdoe/Pump station 4", "jdoe/Valve check – north",
        ])
        #expect(try store.summaries(FormFilter(owner: "jdoe", state: .incomplete)).map(\.name) == ["Pump station 4", "Valve check – north"])
        #expect(try store.countForms(FormFilter(template: "Monthly pump inspection")) == 5)
        #expect(try store.countForms(FormFilter(template: "Other")) == 0)
        // Created before 2026-11-13T12:00Z: asmith's 11-10 and jdoe's 11-12.
        #expect(try store.summaries(FormFilter(olderThanDays: 7)).map(\.name) == ["Pump station 4", "Generator monthly"])
        clock.advance(days: 3)
        #expect(try store.countForms(FormFilter(olderThanDays: 7)) == 3)
        #expect(try store.countForms(FormFilter(state: .incomplete, olderThanDays: 7)) == 2)

        let valve = try #require(try store.summaries(FormFilter(owner: "jdoe")).last)
        #expect(valve.created.text == "2026-11-19T13:40:00+01:00" && valve.mediaCount == 2 && valve.template == "Monthly pump inspection")

        // The listing streams: stopping early by throwing from the body is allowed.
        struct Stop: Error {}
        var seen = 0
        #expect(throws: Stop.self) { try store.forEachForm { _ in seen += 1; if seen == 2 { throw Stop() } } }
        #expect(seen == 2)
    }

    @Test(arguments: TestEngine.allCases) func auditFilters(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "jdoe/Valve"], clock: clock)
        clock.advance(days: 1)
        let cutoff = clock.now()
        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan")
        _ = try store.comment(ref("jdoe/Done"), text: "ok", author: "bwong")
        _ = try store.submit(ref("jdoe/Done"), actor: "mkhan")
        let notices = try store.notices(for: "jdoe")
        #expect(try store.markRead(ids: notices.map(\.id), actor: "jdoe") == 1)
        #expect(try store.markRead(ids: notices.map(\.id), actor: "jdoe") == 0)
        #expect(try store.notices(for: "jdoe") == [] && store.notices(for: "jdoe", unreadOnly: false).first?.readAt == cutoff)

        #expect(try store.auditEntries().map(\.command) == ["import.insert", "import.insert", "import.insert",
                                                            "move", "comment", "submit", "notices.read"])
        #expect(try store.auditEntries(AuditFilter(since: cutoff)).count == 4)
        #expect(try store.auditEntries(AuditFilter(actor: "mkhan")).map(\.command) == ["move", "submit"])
        #expect(try store.auditEntries(AuditFilter(form: ref("asmith/Pump"))).map(\.command) == ["import.insert", "move"])
        #expect(try store.auditEntries(AuditFilter(form: .id(moved.formId))).count == 2)
        #expect(try store.auditEntries(AuditFilter(since: cutoff, actor: "seed")) == [])
        #expect(try store.auditEntries().allSatisfy { $0.at <= cutoff })
    }
}

@Suite("Calling the store from a listing")
struct ReentrancyTests {
    @Test(arguments: TestEngine.allCases) func listingBodyMayCallTheStore(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump", "jdoe/Valve"])
        var moved: [String] = []
        try store.forEachForm(FormFilter(owner: "jdoe", state: .incomplete)) { summary in
            #expect(try store.review(.id(summary.id)).questions.count == 6)
            moved.append(try store.move(.id(summary.id), to: "asmith", actor: "mkhan").newName)
        }
        #expect(moved == ["Pump", "Valve"])
        #expect(try store.names(of: "asmith") == ["Pump", "Valve"])
        var audited = 0
        try store.forEachAuditEntry { _ in audited += try store.countForms() > 0 ? 1 : 0 }
        #expect(audited == 5)
    }
}
