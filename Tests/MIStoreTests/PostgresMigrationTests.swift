import Foundation
import MITestSupport
import Testing
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
