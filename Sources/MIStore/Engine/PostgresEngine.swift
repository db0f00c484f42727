import Foundation

/// The networked engine: one PostgreSQL database that consoles on many hosts share, through one
/// libpq connection per console (``PostgresConnection``).
///
/// - Writes run SERIALIZABLE, PostgreSQL's equivalent of SQLite's one-writer-at-a-time: when two
///   consoles race (both move a form onto the same technician and pick the same free name), one
///   gets a serialization failure or a unique violation, and its whole transaction runs again
///   (up to ``maximumAttempts`` times, with a short random wait), now seeing the other's
///   commit. Then the conflict is reported.
/// - Reads run REPEATABLE READ: one snapshot for a whole listing.
/// - Waiting for another console's row lock past the busy timeout (`lock_timeout`) is `.busy`.
/// - The connection has one owner: every call holds a lock for its transaction; a read started
///   inside another on the same thread joins it (the lock is recursive).
/// - A connection the server closed between two transactions (a restart, a failover) is opened
///   again at the next one, with the same parameters.
final class PostgresEngine: StoreEngine, @unchecked Sendable {
    let target: PostgresTarget
    let busyTimeout: TimeInterval
    /// How many times a write transaction that lost a race is run in all.
    let maximumAttempts = 8
    var dialect: StoreDialect { .postgres }

    private let lock = NSRecursiveLock()
    private let database: PostgresDatabase
    /// Whether a transaction is open on the connection (only read or written under `lock`).
    private var inTransaction = false

    init(target: PostgresTarget, password: String?, conventions: PostgresConnection.UserConventions,
         busyTimeout: TimeInterval) throws {
        self.target = target
        self.busyTimeout = busyTimeout
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(target: target, password: password, conventions: conventions)
            try Self.configureSession(connection, busyTimeout: busyTimeout)
            try PostgresMigrations.migrate(connection)
        } catch let error as PostgresError {
            throw StoreError.mapping(error)
        }
        database = PostgresDatabase(connection)
    }

    func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        // A write inside a read on this thread (a store call from a forEach body): a savepoint of
        // the transaction already open, committed with it.
        if inTransaction { return try database.inSavepoint(rollback: false) { try body(database) } }
        var attempt = 1
        while true {
            do {
                return try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE") { try body(database) }
            } catch let error as StoreError where error.isRetryable && attempt < maximumAttempts {
                attempt += 1
                // 2, 4, 8 ... ms and a random share of it, so two losers do not collide again.
                let base = 0.001 * Double(1 << min(attempt, 7))
                Thread.sleep(forTimeInterval: base + Double.random(in: 0...base))
            } catch let error as StoreError where error.isRetryable {
                throw StoreError(.conflict, "Other consoles kept changing the same forms; gave up after "
                                 + "\(maximumAttempts) attempts (\(error.message)). Try again.", sqlState: error.sqlState)
            }
        }
    }

    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if inTransaction { return try body(database) }
        return try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ") { try body(database) }
    }

    func session<T>(end: FormStore.SessionEnd, _ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if inTransaction { return try database.inSavepoint(rollback: end == .rollback) { try body(database) } }
        return try transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", end: end) { try body(database) }
    }

    /// What every session of the store's connection sets: the busy timeout as `lock_timeout`
    /// (milliseconds; 0 would mean "wait for ever", so a zero busy timeout waits 1 ms).
    private static func configureSession(_ connection: PostgresConnection, busyTimeout: TimeInterval) throws {
        let millis = max(1, Int((busyTimeout * 1000).rounded()))
        try connection.execute("SET lock_timeout = \(millis)")
    }

    /// Starts a transaction. A connection the server closed since the last one (a restart, a
    /// failover, an idle timeout) is opened again first, once: nothing of a transaction is lost,
    /// since none was open. A connection lost in the middle of a transaction is an error
    /// (`.unreachable`); the next command connects again.
    private func begin(_ statement: String) throws {
        let connection = database.connection
        if !connection.isConnected { try reconnect() }
        do {
            try database.mapped { try connection.execute(statement) }
        } catch let error as StoreError where error.kind == .unreachable && !connection.isConnected {
            try reconnect()
            try database.mapped { try connection.execute(statement) }
        }
    }

    private func reconnect() throws {
        let connection = database.connection
        guard connection.reset() else {
            throw StoreError(.unreachable, "Lost the PostgreSQL store at \(target) and could not connect again.")
        }
        try database.mapped { try Self.configureSession(connection, busyTimeout: busyTimeout) }
    }

    /// BEGIN, `body`, then COMMIT (or ROLLBACK for `.rollback`); ROLLBACK when anything throws.
    private func transaction<T>(_ begin: String, end: FormStore.SessionEnd = .commit, _ body: () throws -> T) throws -> T {
        try self.begin(begin)
        inTransaction = true
        defer { inTransaction = false }
        let result: T
        do {
            result = try body()
        } catch {
            _ = try? database.connection.execute("ROLLBACK")
            throw error
        }
        do {
            try database.mapped { try database.connection.execute(end == .commit ? "COMMIT" : "ROLLBACK") }
        } catch {
            _ = try? database.connection.execute("ROLLBACK")
            throw error
        }
        return result
    }

    /// Nothing to do: the one connection is open since `init`.
    func openAllConnections() throws {}

    /// PostgreSQL checks its own storage (page checksums, `amcheck`); the store has nothing of
    /// its own to add, so this is the server's answer that the connection and schema are usable.
    func integrityProblems() throws -> [String] {
        try read { db in _ = try db.value(Int.self, "SELECT count(*) FROM schema_migrations") }
        return ["ok"]
    }

    func schemaVersion() throws -> String? {
        lock.lock()
        defer { lock.unlock() }
        return try database.mapped { try PostgresMigrations.version(database.connection) }
    }
}
