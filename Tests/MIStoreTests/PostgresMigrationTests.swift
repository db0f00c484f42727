import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// The PostgreSQL schema on the real server: applied once under the advisory lock even when
/// consoles start together, the same migration identifiers as SQLite, the live owner+name rule,
/// and a store from a newer miadmin refused with both versions named.
@Suite("PostgreSQL schema migrations (real server)", .serialized, .tags(.postgres), .needsPostgres)
struct PostgresMigrationTests {
    let fixture = PostgresFixture.shared

    /// A connection (as the store role) to a new, empty database of its own, made by the superuser.
    /// The fixture's databases live as long as the fixture.
    private func freshDatabase() throws -> PostgresConnection {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = try PostgresConnection(target: try PostgresTarget(uri: fixture.adminURL), password: fixture.adminPassword)
        try admin.execute("CREATE DATABASE \(name) OWNER miadmin")  // name is [a-z0-9_] only: safe to splice
        return try PostgresConnection(target: try PostgresTarget(uri: fixture.url(database: String(name))),
                                      password: fixture.password)
    }

    @Test func appliesOnceWhenSeveralConsolesStartTogether() async throws {
        let first = try freshDatabase()
        let url = fixture.url(database: first.target.options["dbname"]!)
        let password = fixture.password
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let connection = try PostgresConnection(target: try PostgresTarget(uri: url), password: password)
                    try PostgresMigrations.migrate(connection)
                }
            }
            try await group.waitForAll()
        }
        let rows = try first.execute("SELECT id, count(*) FROM schema_migrations GROUP BY id ORDER BY min(applied_at), id")
        #expect(rows.rowCount == Migrations.all.count)
        #expect((0..<rows.rowCount).allSatisfy { rows.int64($0, 1) == 1 })
        #expect(try PostgresMigrations.version(first) == Migrations.all.last!.id)
        // Migrating again is a no-op.
        try PostgresMigrations.migrate(first)
        #expect(try first.execute("SELECT count(*) FROM schema_migrations").int64(0, 0) == Int64(Migrations.all.count))
    }

    /// A process of anybody's (a console stopped with SIGSTOP in its start-up transaction, a
    /// psql of the store role) holding the update lock must not stop the site: a console on a
    /// current schema reads the version and takes no lock.
    @Test func aStoreOnACurrentSchemaOpensWhileAnotherSessionHoldsTheUpdateLock() throws {
        let first = try freshDatabase()
        try PostgresMigrations.migrate(first)
        try first.execute("BEGIN")
        try first.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(PostgresMigrations.lockKey)])
        defer { _ = try? first.execute("ROLLBACK") }
        // The lock stays held until the test ends: a start that asked for it would end busy after
        // the busy timeout, so opening at all shows it took no lock.
        let store = try FormStore(postgres: first.target, password: fixture.password, busyTimeout: 2, reconnectSeconds: 0)
        #expect(try store.engine.schemaVersion() == Migrations.all.last!.id)
    }

    /// A store that does need migrating waits for the lock only up to its deadline, then says
    /// which session holds it (behind a transaction pooler too: the deadline is `SET LOCAL`).
    @Test func aMigrationWaitsForTheUpdateLockUpToItsDeadlineAndNamesTheHolder() throws {
        let empty = try freshDatabase()
        try empty.execute("SET application_name = 'stuck-console'")
        try empty.execute("BEGIN")
        try empty.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(PostgresMigrations.lockKey)])
        defer { _ = try? empty.execute("ROLLBACK") }
        let pid = try empty.execute("SELECT pg_backend_pid()").int64(0, 0)
        let second = try PostgresConnection(target: empty.target, password: fixture.password)
        let started = Date()
        #expect { try PostgresMigrations.migrate(second, lockWaitSeconds: 1) } throws: { error in
            guard let error = error as? StoreError, error.kind == .busy else { return false }
            return error.message.contains("server process \(pid!)") && error.message.contains("stuck-console")
                && error.message.contains("role miadmin")
        }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.9 && waited < 5, "waited \(waited) s")
    }

    @Test func liveOwnerAndNameAreUniqueButTrashIsNot() throws {
        let connection = try freshDatabase()
        try PostgresMigrations.migrate(connection)
        let insert = """
            INSERT INTO forms (owner, name, template, template_id, state, created, created_utc, modified,
                               modified_utc, questions, trashed_at)
            VALUES ($1, $2, 'T', 't1', 'incomplete', '2026-01-01', 0, '2026-01-01', 0, '[]', $3) RETURNING id
            """
        let first = try connection.execute(insert, [.text("jdoe"), .text("Pump"), nil]).int64(0, 0)
        #expect { try connection.execute(insert, [.text("jdoe"), .text("Pump"), nil]) } throws: {
            ($0 as! PostgresError).sqlState == .uniqueViolation
        }
        // A trashed form may share the name; a form's media go with it.
        _ = try connection.execute(insert, [.text("jdoe"), .text("Pump"), .double(1)])
        try connection.execute("""
            INSERT INTO media (form_id, file_name, question, number, ext, size, sha256, data)
            VALUES ($1, 'Qid0(1).jpg', 0, 1, 'jpg', 3, 'x', $2)
            """, [.int(first!), .bytes([1, 2, 3])])
        try connection.execute("DELETE FROM forms WHERE id = $1", [.int(first!)])
        #expect(try connection.execute("SELECT count(*) FROM media").int64(0, 0) == 0)
    }

    @Test func aStoreFromANewerMiadminIsRefusedNamingBothVersions() throws {
        let connection = try freshDatabase()
        try PostgresMigrations.migrate(connection)
        try connection.execute("INSERT INTO schema_migrations (id) VALUES ('v9-from-the-future')")
        #expect { try PostgresMigrations.migrate(connection) } throws: { error in
            let error = error as! StoreError
            return error.kind == .newerSchema && error.message.contains("v9-from-the-future")
                && error.message.contains(Migrations.all.last!.id)
        }
    }

    @Test func aFailedTransactionLeavesNothing() throws {
        let connection = try freshDatabase()
        try PostgresMigrations.migrate(connection)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction(.serializable) {
                try connection.execute("INSERT INTO policy (key, value, set_at, set_by) VALUES ('k', 'v', 0, 'mkhan')")
                throw Stop()
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM policy").int64(0, 0) == 0)
    }
}
