/// One of the two places a store lives: a SQLite file (``SQLiteEngine``) or a PostgreSQL
/// database (``PostgresEngine``). An engine opens transactions and hands the operations a
/// ``StoreDatabase``; it holds everything the operations must not know about (connections,
/// locking, retries, migrations).
protocol StoreEngine: Sendable {
    var dialect: StoreDialect { get }

    /// Runs `body` in one write transaction that commits when it returns: IMMEDIATE on SQLite
    /// (one writer at a time), SERIALIZABLE on PostgreSQL, where a transaction that lost a race
    /// (serialization failure, unique violation) is run again, a bounded number of times.
    func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T

    /// Runs `body` on one consistent snapshot. Reentrant: a read started inside another read on
    /// the same thread runs on the same connection and snapshot.
    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T

    /// ``read(_:)`` for an operation that must see the whole store at one moment however long
    /// it takes (a copy, an export, the integrity check): `limits.snapshotSeconds` does not end
    /// it. Such operations are a foreman's or support's, one at a time, and end by themselves;
    /// the `-wal` file grows while one lasts and `journal_size_limit` shrinks it after.
    func readWholeStore<T>(_ body: (any StoreDatabase) throws -> T) throws -> T

    /// Runs `body` inside one transaction (`--atomic`, `--dry-run`) with `db` as the session's
    /// connection; commits or rolls back as `end` says, rolls back when `body` throws.
    func session<T>(end: FormStore.SessionEnd, _ body: (any StoreDatabase) throws -> T) throws -> T

    /// ``session(end:_:)`` ending in a commit, for a body that is a pure function of what it
    /// reads (nothing of an attempt escapes before COMMIT): on PostgreSQL run again after a lost
    /// race or connection, as ``write(_:)`` is.
    func retriedSession<T>(_ body: (any StoreDatabase) throws -> T) throws -> T

    /// Opens now every connection the store will use (see ``FormStore/openAllConnections()``).
    func openAllConnections() throws

    /// The engine's own consistency check of its storage; each line a problem ("ok" is none).
    func integrityProblems() throws -> [String]

    /// The schema version the store is at (the newest applied migration).
    func schemaVersion() throws -> String?

    /// The times the engine connected again after losing its connection, since the last call.
    func takeReconnections() -> [StoreReconnection]

    /// Who runs what on this store now (`mkhan expire`), for another console's busy error
    /// (``StoreHolder``). PostgreSQL shows it in `application_name`; SQLite has nowhere to
    /// put it that another process could read, and names the process instead.
    func setActivity(_ text: String?)

    /// How long one read snapshot may last (`limits.snapshotSeconds`, ``SnapshotWatch``):
    /// SQLite's readers hold back its checkpoints; PostgreSQL's do not grow its files that way.
    func setSnapshotLimit(_ seconds: Double)
}

extension StoreEngine {
    /// SQLite has one writer at a time: no race to lose, nothing to run again.
    func retriedSession<T>(_ body: (any StoreDatabase) throws -> T) throws -> T { try session(end: .commit, body) }
    func takeReconnections() -> [StoreReconnection] { [] }
    func setActivity(_ text: String?) {}
    func setSnapshotLimit(_ seconds: Double) {}
    /// No snapshot limit to lift: PostgreSQL's readers do not hold back its files.
    func readWholeStore<T>(_ body: (any StoreDatabase) throws -> T) throws -> T { try read(body) }
}

/// A lost connection to a PostgreSQL store that was opened again (a restart, a failover).
public struct StoreReconnection: Sendable, Equatable {
    /// The host and port connected to now (after a failover: the new primary).
    public let host: String
    /// How long it took from noticing the loss.
    public let seconds: Double
}
