import MIPostgres
import Foundation

/// The store's migrations (``Migrations``, one list for both engines) applied on PostgreSQL.
enum PostgresMigrations {
    /// Applies the missing migrations, once, even when several consoles start at the same moment.
    ///
    /// A store whose schema is current (every start but the first after an upgrade) is only
    /// read: no lock, so no process can make consoles wait by holding one. Otherwise all of it
    /// runs in one transaction holding a transaction-scoped advisory lock, so a second console
    /// waits, then finds the work done; it waits at most `lockWaitSeconds` (`SET LOCAL
    /// lock_timeout`, which holds behind a transaction pooler too), then fails naming the
    /// session that holds the lock.
    ///
    /// - Throws: ``StoreError`` of kind `.newerSchema` when the store holds a migration this
    ///   binary does not know (a newer miadmin migrated it), naming both schema versions; `.busy`
    ///   when the lock stayed taken.
    static func migrate(_ connection: PostgresConnection, lockWaitSeconds: TimeInterval = 10) throws {
        if try isCurrent(connection) { return }
        let milliseconds = max(1, Int((lockWaitSeconds * 1000).rounded()))
        do {
            try connection.transaction {
                try connection.execute("SET LOCAL lock_timeout = \(milliseconds)")
                try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(lockKey)])
                try connection.execute(SchemaDialect.postgres.stateTable)
                for migration in try Migrations.pending(applied: applied(connection), at: connection.target.description) {
                    try connection.executeScript(migration.sql(for: .postgres))
                    try connection.execute("INSERT INTO schema_migrations (id) VALUES ($1)", [.text(migration.id)])
                }
            }
        } catch let error as PostgresError where error.sqlState == .lockNotAvailable && !connection.lost {
            throw StoreError(.busy, "The store's schema is being updated by another session, which held the update "
                             + "lock for more than \(StoreError.formatSeconds(lockWaitSeconds)) s"
                             + (lockHolder(connection).map { ": \($0)" } ?? "")
                             + ". Try again; if it stays, end that session (pg_terminate_backend).",
                             sqlState: error.sqlState?.rawValue)
        }
    }

    /// Whether every migration this binary knows is applied (and none it does not know).
    private static func isCurrent(_ connection: PostgresConnection) throws -> Bool {
        let exists = try connection.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
        guard exists.string(0, 0) == "t" else { return false }
        return try Migrations.pending(applied: applied(connection), at: connection.target.description).isEmpty
    }

    /// Who holds the update lock in this database: pid, role, application and for how long.
    private static func lockHolder(_ connection: PostgresConnection) -> String? {
        guard let rows = try? connection.execute("""
            SELECT a.pid, a.usename::text, a.application_name, coalesce(a.client_addr::text, 'local'),
                   extract(epoch FROM now() - coalesce(a.xact_start, a.backend_start))::bigint
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid::bigint * 4294967296 + l.objid::bigint = $1
            LIMIT 1
            """, [.int(lockKey)]), rows.rowCount == 1 else { return nil }
        let application = rows.string(0, 2).flatMap { $0.isEmpty ? nil : $0 }
        return "server process \(rows.string(0, 0) ?? "?") of role \(rows.string(0, 1) ?? "?")"
            + (application.map { " (\($0))" } ?? "") + " from \(rows.string(0, 3) ?? "?"), for \(rows.string(0, 4) ?? "?") s"
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
