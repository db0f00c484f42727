import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// The store behind a real PgBouncer 1.x in transaction pooling (TLS on both sides,
/// Scripts/pg-fixture pgbouncer), where each transaction may run on another server connection:
/// no named prepared statement, session `SET` or cursor may outlive a transaction.
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresPoolerTests {
    let site = PostgresSiteFixture.pooled

    /// A new empty database, and its URL through PgBouncer.
    func newDatabase() throws -> (direct: String, pooled: String) {
        let direct = try site.fixture.newDatabase()
        let name = direct.components(separatedBy: "?")[0].components(separatedBy: "/").last!
        return (direct, site.bouncerURL.replacingOccurrences(of: "/mi?", with: "/\(name)?"))
    }

    func open(_ url: String, pooler: PostgresPooler? = nil) throws -> FormStore {
        try FormStore(postgres: try PostgresTarget(uri: url), password: site.fixture.password, pooler: pooler)
    }

    /// Two consoles through the pooler move forms back and forth, one transaction each, so their
    /// statements keep landing on server connections the other used (42P05 "prepared statement
    /// already exists" before). Every move is applied once, with its notices and audit row.
    @Test func twoConsolesMoveThroughTransactionPooling() throws {
        let urls = try newDatabase()
        let first = try open(urls.pooled)
        let second = try open(urls.pooled)
        #expect(first.postgresPooler == .transaction && second.postgresPooler == .transaction)
        #expect(try open(urls.direct).postgresPooler == PostgresPooler.none)

        let dir = try TempDir()
        let tree = try TreeBuilder(dir.sub("seed"))
        for index in 1...6 { try tree.form("jdoe/Pump \(index)") }
        #expect(try first.importTree(at: tree.root, actor: "seed").inserted.count == 6)
        var moves = 0
        for round in 0..<4 {
            for index in 1...6 {
                let console = (round + index) % 2 == 0 ? first : second
                let (from, to) = round % 2 == 0 ? ("jdoe", "asmith") : ("asmith", "jdoe")
                let result = try console.move(ref("\(from)/Pump \(index)"), to: to, actor: "mkhan")
                #expect(result.moved && result.newName == "Pump \(index)")
                moves += 1
            }
        }
        let counts = try second.read { db in
            (try db.value(Int.self, literal: "SELECT count(*) FROM audit WHERE command = 'move'"),
             try db.value(Int.self, literal: "SELECT count(*) FROM notices WHERE source IN ('move', 'move.received')"),
             try db.value(Int.self, literal: "SELECT count(*) FROM forms WHERE owner = 'jdoe' AND name LIKE 'Pump %'"))
        }
        #expect(counts.0 == moves && counts.1 == 2 * moves && counts.2 == 6)
    }

    /// The busy timeout holds in every transaction (`SET LOCAL`, sent with BEGIN), and a listing
    /// longer than one cursor batch (500 rows) reads through its cursor inside the transaction.
    @Test func lockTimeoutAndCursorsHoldWithinEachTransaction() throws {
        let store = try open(try newDatabase().pooled)
        #expect(try store.read { try $0.value(String.self, literal: "SHOW lock_timeout") } == "5s")
        var seen = 0
        try store.read { db in
            try db.forEachRow(literal: "SELECT g FROM generate_series(1, 1234) AS g") { row in
                seen += 1
                #expect(row.values[0] == .integer(Int64(seen)))
            }
        }
        #expect(seen == 1234)
        // Writes too: the id recorded, the timeout set.
        let timeout = try store.write { db in try db.value(String.self, literal: "SHOW lock_timeout") }
        #expect(timeout == "5s")
    }

    /// PgBouncer in session pooling (a site of its own): found as a pooler and taken to pool by
    /// transaction, or told `session` and then keeping statements prepared; two consoles move
    /// through it either way, each move once.
    @Test func sessionPoolingWorksFoundOrConfigured() throws {
        let site = try PostgresSiteFixture(bouncerMode: "session")
        defer { site.stop() }
        let found = try FormStore(postgres: try PostgresTarget(uri: site.bouncerURL), password: site.fixture.password)
        let told = try FormStore(postgres: try PostgresTarget(uri: site.bouncerURL), password: site.fixture.password,
                                 pooler: .session)
        #expect(found.postgresPooler == .transaction && told.postgresPooler == .session)
        let dir = try TempDir()
        let tree = try TreeBuilder(dir.sub("seed"))
        for index in 1...4 { try tree.form("jdoe/Pump \(index)") }
        #expect(try told.importTree(at: tree.root, actor: "seed").inserted.count == 4)
        for index in 1...4 {
            try (index % 2 == 0 ? found : told).move(ref("jdoe/Pump \(index)"), to: "asmith", actor: "mkhan")
        }
        #expect(try found.read { try $0.value(Int.self, literal: "SELECT count(*) FROM audit WHERE command = 'move'") } == 4)
        #expect(try told.read { try $0.value(String.self, literal: "SHOW lock_timeout") } == "5s")
    }

    /// A session-pooling site may say so: named statements are kept (prepared once per
    /// connection), the lock timeout set once per session.
    @Test func aConfiguredModeIsUsedAsIs() throws {
        let urls = try newDatabase()
        let store = try open(urls.pooled, pooler: .session)
        #expect(store.postgresPooler == .session)
        let direct = try open(urls.direct, pooler: .transaction)
        #expect(direct.postgresPooler == .transaction)
        #expect(try direct.read { try $0.value(String.self, literal: "SHOW lock_timeout") } == "5s")
    }
}
