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
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v3-future-thing')")
            try db.execute(sql: "CREATE TABLE future_thing (id INTEGER PRIMARY KEY)")
        }
        let snapshot = { try queue.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                + String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
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

private extension String {
    static func fetchAll(db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
    }
}
