import Foundation
import GRDB
import Testing
@testable import MIStore

@Suite("Schema versions")
struct SchemaVersionTests {
    @Test func aStoreMigratedByANewerMiadminIsRefusedNamingBothVersions() throws {
        let dir = try TempDir()
        let path = dir.path + "/store.sqlite"
        _ = try FormStore(path: path)
        // What a newer miadmin leaves behind: a migration this binary does not know, and a table.
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO schema_migrations (id) VALUES ('v3-future-thing')")
            try db.execute(sql: "CREATE TABLE future_thing (id INTEGER PRIMARY KEY)")
        }
        let snapshot = { try queue.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                + String.fetchAll(db, sql: "SELECT id FROM schema_migrations ORDER BY rowid")
        } }
        let before = try snapshot()

        #expect {
            _ = try FormStore(path: path)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .newerSchema && error.message.contains("v3-future-thing")
                && error.message.contains("v4-write-ids") && error.path == path
        }
        #expect(try snapshot() == before, "the refused store was migrated")
    }

    @Test func theCurrentSchemaOpens() throws {
        let dir = try TempDir()
        let path = dir.path + "/store.sqlite"
        _ = try FormStore(path: path)
        _ = try FormStore(path: path)
        let applied = try DatabaseQueue(path: path).read { try String.fetchAll(db: $0) }
        #expect(applied == Migrations.identifiers)
    }
}

extension SchemaVersionTests {
    /// A store made by miadmin 1.1.0 recorded its migrations in GRDB's `grdb_migrations`: it
    /// opens with the same schema, its identifiers move to `schema_migrations`, and a migration
    /// applied from now on is recorded in both, so that 1.1.0 refuses the store it cannot know.
    @Test func aStoreOfTheGRDBMigratorKeepsItsHistory() throws {
        let dir = try TempDir()
        let path = dir.path + "/store.sqlite"
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            try db.execute(sql: Migrations.v1.sql(for: .sqlite))
            try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v1')")
        }
        _ = try FormStore(path: path)
        let (state, legacy, columns) = try queue.read { db in
            (try String.fetchAll(db, sql: "SELECT id FROM schema_migrations ORDER BY rowid"),
             try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
             try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('forms')"))
        }
        #expect(state == Migrations.identifiers)
        #expect(legacy == Migrations.identifiers)
        #expect(columns.contains("expiry_reset_at"))
    }

    /// One list for both engines: every placeholder is spelled for each, and SQLite's rendering
    /// of a migration is what shipped (the schema a 1.1.0 store has).
    @Test func migrationsRenderForBothEngines() {
        for migration in Migrations.all {
            for dialect in [SchemaDialect.sqlite, .postgres] {
                #expect(!migration.sql(for: dialect).contains("{"), "\(migration.id)")
            }
        }
        #expect(Migrations.v2.sql(for: .sqlite).contains("ALTER TABLE forms ADD COLUMN expiry_reset_at REAL;"))
        #expect(Migrations.v2.sql(for: .postgres).contains("key text COLLATE \"C\" PRIMARY KEY"))
        #expect(Migrations.tables == ["forms", "media", "foreman_comments", "notices", "audit", "policy", "outbox",
                                      "sent_reminders"])
        #expect(Migrations.v3.sql(for: .postgres).contains("idempotency_key text COLLATE \"C\" NOT NULL UNIQUE"))
        #expect(Migrations.v3.sql(for: .sqlite).contains("id INTEGER PRIMARY KEY AUTOINCREMENT"))
    }
}

private extension String {
    static func fetchAll(db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM schema_migrations ORDER BY rowid")
    }
}
