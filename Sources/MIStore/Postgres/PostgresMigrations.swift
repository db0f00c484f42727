import Foundation

/// The store's migrations (``Migrations``, one list for both engines) applied on PostgreSQL.
enum PostgresMigrations {
    /// Applies the missing migrations, once, even when several consoles start at the same moment:
    /// all of it runs in one transaction holding a transaction-scoped advisory lock, so a second
    /// console waits, then finds the work done.
    ///
    /// - Throws: ``StoreError`` of kind `.newerSchema` when the store holds a migration this
    ///   binary does not know (a newer miadmin migrated it), naming both schema versions.
    static func migrate(_ connection: PostgresConnection) throws {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(lockKey)])
            try connection.execute(SchemaDialect.postgres.stateTable)
            for migration in try Migrations.pending(applied: applied(connection), at: connection.target.description) {
                try connection.executeScript(migration.sql(for: .postgres))
                try connection.execute("INSERT INTO schema_migrations (id) VALUES ($1)", [.text(migration.id)])
            }
        }
    }

    /// For a read-only standby (`store.readUrl`): refuses a store migrated by a newer miadmin,
    /// as ``migrate(_:)`` does, and writes nothing.
    static func checkKnown(_ connection: PostgresConnection) throws {
        _ = try Migrations.pending(applied: applied(connection), at: connection.target.description)
    }

    /// The schema version a store is at: the identifier of its newest applied migration in this
    /// binary's order, or nil for an empty database.
    static func version(_ connection: PostgresConnection) throws -> String? {
        let exists = try connection.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
        guard exists.string(0, 0) == "t" else { return nil }
        return Migrations.version(applied: try applied(connection))
    }

    private static func applied(_ connection: PostgresConnection) throws -> Set<String> {
        let rows = try connection.execute("SELECT id FROM schema_migrations")
        return Set((0..<rows.rowCount).compactMap { rows.string($0, 0) })
    }

    /// The advisory lock that serialises migrations: a fixed key, "miadmin" in ASCII.
    static let lockKey: Int64 = 0x6D69_6164_6D69_6E
}
