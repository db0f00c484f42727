import Foundation
import MITestSupport
import Testing
@testable import MIStore

/// Reads on PostgreSQL are READ ONLY transactions: a listing takes no part in the serializable
/// writes' races, and a change made from a listing's body is a write of its own.
@Suite(.tags(.postgres), .needsPostgres) struct PostgresReadOnlyTests {
    /// What the server says of the transaction a read runs in, and of one a listing's body
    /// joins (``FormStore/forEachForm(_:_:)``, what `forms`, `today` and the bulk selections use).
    @Test func aReadAndAListingRunInAReadOnlyTransaction() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "jdoe/Valve"])
        #expect(try store.read(Self.mode) == "on repeatable read")
        var seen: [String] = []
        try store.forEachForm(FormFilter(owner: "jdoe", state: .incomplete)) { _ in
            seen.append(try store.read(Self.mode) ?? "")
        }
        #expect(seen == ["on repeatable read", "on repeatable read"])
    }

    static func mode(_ db: any StoreDatabase) throws -> String? {
        try db.value(String.self, literal: """
            SELECT current_setting('transaction_read_only') || ' ' || current_setting('transaction_isolation')
            """)
    }

    /// A move made from a listing's body is its own SERIALIZABLE transaction on its own
    /// connection: committed at once (another console sees it while the listing goes on), not
    /// a part of the listing's snapshot, which still shows the forms where they were.
    @Test func aChangeFromAListingsBodyCommitsAtOnceOnItsOwn() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "jdoe/Valve"])
        let other = try makeStore(dir, engine: .postgres)
        var seenByOther: [[String]] = []
        var listed: [String] = []
        try store.forEachForm(FormFilter(owner: "jdoe", state: .incomplete)) { summary in
            _ = try store.move(.id(summary.id), to: "asmith", actor: "mkhan")
            seenByOther.append(try other.names(of: "asmith"))
            listed.append(try store.read { try $0.value(String.self, literal: "SELECT owner FROM forms WHERE id = \(summary.id)") } ?? "")
        }
        #expect(seenByOther == [["Pump"], ["Pump", "Valve"]])
        #expect(listed == ["jdoe", "jdoe"])
        #expect(try store.names(of: "asmith") == ["Pump", "Valve"])
        #expect(try store.auditEntries(AuditFilter(actor: "mkhan")).map(\.command) == ["move", "move"])
    }
}
