import MIPostgres
import Foundation
import Synchronization

/// The networked engine: one PostgreSQL database that consoles on many hosts share, through one
/// libpq connection per console (``PostgresConnection``).
///
/// - Writes run SERIALIZABLE, PostgreSQL's equivalent of SQLite's one-writer-at-a-time: when two
///   consoles race (both move a form onto the same technician and pick the same free name), one
///   gets a serialization failure or a unique violation, and its whole transaction runs again
///   after a jittered, growing wait, now seeing the other's commit, for up to ``raceBudget``
///   seconds. Then the conflict is reported.
/// - Reads run REPEATABLE READ READ ONLY: one snapshot for a whole listing, and outside the
///   serializable writes' conflict tracking (only SERIALIZABLE transactions take part in it), so a
///   listing never makes a writer lose a race. Unlike SERIALIZABLE READ ONLY DEFERRABLE it never
///   waits for a safe snapshot: a listing starts at once however busy the writers are. A read is
///   never a write's transaction: a change made from a listing's body (a store call from a
///   forEach body) runs as its own write on a second connection (``beside``), committed at once,
///   as SQLite's writer connection does it.
/// - Waiting for another console's row lock past the busy timeout (`lock_timeout`) is `.busy`.
/// - The connection has one owner: every call holds a lock for its transaction; a read started
///   inside another on the same thread joins it (the lock is recursive).
///
/// Failover (docs/install.md): when the connection is lost (a restart, a switchover, a primary
/// that died and a standby promoted), the engine connects again through the URL's hosts
/// (libpq's `target_session_attrs=read-write` finds the new primary), with a growing wait, for up
/// to ``Options/reconnectSeconds``, and goes on:
/// - a transaction lost before its COMMIT was sent is run again (the server rolled it back);
/// - a COMMIT whose answer was lost is in doubt. Every write transaction first inserts a unique
///   id into `write_ids`; after connecting again the engine inserts the same id in a transaction
///   it rolls back: a unique violation says the lost COMMIT happened (the result computed before
///   it is returned), success says it did not (the transaction is run again). A transaction
///   still holding the id on a server that outlived its client is waited for by that insert.
/// - after the window the call fails `.unreachable`, saying whether the change was applied.
///
/// Poolers (``PostgresPooler``): in transaction pooling nothing outlives a transaction: no named
/// statements, `SET LOCAL lock_timeout` sent with each `BEGIN`.
final class PostgresEngine: StoreEngine, @unchecked Sendable {
    struct Options: Sendable {
        /// What is between the console and the server; nil: find out (``PostgresPooler/detect(on:)``).
        var pooler: PostgresPooler?
        /// How long a lost connection is tried again before the command fails.
        var reconnectSeconds: TimeInterval = 30
        /// A standby for reads (`store.readUrl`): nothing is migrated or deleted there; its
        /// schema must be one this binary knows.
        var readOnly = false
    }

    let target: PostgresTarget
    let busyTimeout: TimeInterval
    /// Opens the engine of the second connection (``beside``), with this one's settings.
    private let opening: @Sendable (PostgresPooler) throws -> PostgresEngine
    /// The engine for changes made from inside a read, opened at the first such change.
    private var besideEngine: PostgresEngine?
    let options: Options
    /// The pooler mode in force: the configured one, or the one found at connection.
    let pooler: PostgresPooler
    /// How many times a write transaction that lost a race may run in all, within the race
    /// budget (``raceBudget``): no limit but the time; tests lower it to see a race finally lost.
    var maximumAttempts = Int.max
    /// How long a write transaction that keeps losing races is run again before the conflict
    /// is reported: the busy timeout (the time a change may wait for other consoles), at least
    /// one second.
    var raceBudget: TimeInterval { max(busyTimeout, 1) }
    /// Write transactions run again after a lost race since the engine opened, for tests.
    private(set) var racesRetried = 0
    var dialect: StoreDialect { .postgres }

    private let lock = NSRecursiveLock()
    private let database: PostgresDatabase
    private var connection: PostgresConnection { database.connection }
    /// The transaction open on the connection (only read or written under `lock`).
    private var open: OpenTransaction?
    private let reconnections = Mutex<[StoreReconnection]>([])
    /// Who runs what (`mkhan expire`), put in `application_name` for each write transaction.
    private let activity = Mutex<String?>(nil)

    private struct OpenTransaction {
        let kind: Kind
        /// The id recorded in `write_ids` by this transaction, once it wrote (or will write).
        var writeId: String?
    }

    private enum Kind: Equatable {
        /// `retriedSession`: a session whose body is a pure function of what it reads (nothing
        /// of an attempt leaves it before COMMIT), so it is run again as a write is.
        case read, write, session(FormStore.SessionEnd), retriedSession

        /// Whether a lost race or a lost connection runs the whole body again.
        var runsAgain: Bool { self == .write || self == .retriedSession }

        var isolation: String { self == .read ? "REPEATABLE READ READ ONLY" : "SERIALIZABLE" }
        var commits: Bool { self != .session(.rollback) }
        /// What became of a transaction lost before its COMMIT.
        var notApplied: String { commits && self != .read ? "this change was not applied" : "nothing was changed" }
    }

    init(target: PostgresTarget, password: String?, conventions: PostgresConnection.UserConventions,
         busyTimeout: TimeInterval, options: Options = Options()) throws {
        self.target = target
        self.busyTimeout = busyTimeout
        self.options = options
        let (connection, pooler) = try Self.open(target: target, password: password, conventions: conventions,
                                                 busyTimeout: busyTimeout, options: options)
        self.pooler = pooler
        database = PostgresDatabase(connection)
        opening = { pooler in
            var options = options
            options.pooler = pooler
            return try PostgresEngine(target: target, password: password, conventions: conventions,
                                      busyTimeout: busyTimeout, options: options)
        }
    }

    /// The engine a change made from inside a read runs on: the read's transaction is READ ONLY
    /// and its snapshot must not change under the listing, so the change gets a transaction (and
    /// its retries, write id and reconnection) of its own, on a connection of its own.
    private func beside() throws -> PostgresEngine {
        if let besideEngine { return besideEngine }
        let engine = try opening(pooler)
        engine.maximumAttempts = maximumAttempts
        engine.setActivity(activity.withLock { $0 })
        besideEngine = engine
        return engine
    }

    /// Whether the transaction open on this thread is a read (a change must go ``beside()``).
    private var inRead: Bool { open?.kind == .read }

    func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if inRead { return try beside().write(body) }
        // A write inside a session on this thread: a savepoint of the transaction already open,
        // committed with it, which now records a write id.
        if open != nil {
            try recordWriteId()
            return try database.inSavepoint(rollback: false) { try body(database) }
        }
        return try namingHolder { try run(.write) { try body(database) } }
    }

    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if open != nil { return try body(database) }
        return try run(.read) { try body(database) }
    }

    func session<T>(end: FormStore.SessionEnd, _ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if inRead { return try beside().session(end: end, body) }
        if open != nil {
            if end == .commit { try recordWriteId() }
            return try database.inSavepoint(rollback: end == .rollback) { try body(database) }
        }
        return try namingHolder { try run(.session(end)) { try body(database) } }
    }

    func retriedSession<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if inRead { return try beside().retriedSession(body) }
        if open != nil { return try session(end: .commit, body) }
        return try namingHolder { try run(.retriedSession) { try body(database) } }
    }

    func setActivity(_ text: String?) {
        activity.withLock { $0 = text }
        // An `--atomic` session began before its first command: the label follows each command.
        lock.lock()
        defer { lock.unlock() }
        besideEngine?.setActivity(text)
        if let open, open.kind != .read, !connection.lost {
            _ = try? database.mapped { try connection.execute(applicationNameStatement()) }
        }
    }

    /// `SET LOCAL application_name` for a write transaction: `miadmin: mkhan expire`, what
    /// another console's busy error names (``StoreHolder``). Only letters, digits and `._@-`
    /// and spaces pass; the server keeps 63 bytes.
    private func applicationNameStatement() -> String {
        "SET LOCAL application_name = '\(applicationName())'"
    }

    private func applicationName() -> String {
        let label = activity.withLock { $0 }.map { "miadmin: " + $0 } ?? "miadmin"
        return String(String.UnicodeScalarView(label.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._@-: ".unicodeScalars.contains(scalar))
                ? scalar : "?"
        }).prefix(63))
    }

    /// The settings a transaction starts with, as one statement: behind a transaction pooler
    /// the lock timeout, for a write its label (``applicationNameStatement()``). Behind the
    /// pooler every statement is parsed anew by the server, so a write's two settings go as one
    /// `set_config` query rather than two `SET LOCAL`s.
    private func settingsStatement(_ kind: Kind) -> String? {
        let timeout = pooler == .transaction
        switch (timeout, kind != .read) {
        case (true, true):
            return "SELECT set_config('lock_timeout', '\(Self.lockTimeoutMilliseconds(busyTimeout))', true), "
                + "set_config('application_name', '\(applicationName())', true)"
        case (true, false): return Self.lockTimeoutStatement(busyTimeout, local: true)
        case (false, true): return applicationNameStatement()
        case (false, false): return nil
        }
    }

    /// A busy error names the likely holder (``PostgresLockHolder``), looked for once.
    private func namingHolder<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError where error.kind == .busy && !error.holderSought && !connection.lost {
            let holder = (try? database.rows(literal: PostgresLockHolder.query))?.first.map(PostgresLockHolder.holder)
            throw StoreError.postgresBusy(sqlState: error.sqlState, holder: holder, sought: true)
        }
    }

    /// The connection's round trips so far (``PostgresConnection/roundTrips``), for tests.
    var roundTrips: Int {
        lock.lock()
        defer { lock.unlock() }
        return connection.roundTrips
    }

    func takeReconnections() -> [StoreReconnection] {
        lock.lock()
        let beside = besideEngine
        lock.unlock()
        return reconnections.withLock { list in defer { list = [] }; return list } + (beside?.takeReconnections() ?? [])
    }

    // MARK: - Transactions

    /// BEGIN, `body`, COMMIT (ROLLBACK for a dry run), run again as the rules above say: after a
    /// lost race (writes only), after a lost connection (when `body` can be run again: a write,
    /// or a read that has handed no row out yet), and after a COMMIT in doubt that did not happen.
    private func run<T>(_ kind: Kind, _ body: () throws -> T) throws -> T {
        lossWindow = nil
        defer { lossWindow = nil }
        let writeId = kind == .read || kind == .session(.rollback) ? nil : UUID().uuidString.lowercased()
        var attempt = 1
        let started = Date()
        while true {
            let result: T
            do {
                result = try attemptBody(kind, writeId: writeId, body)
            } catch let error as StoreError where kind.runsAgain && error.isRetryable && !connection.lost {
                try retry(after: error, attempt: &attempt, since: started)
                continue
            } catch where connection.lost {
                // Lost before COMMIT was sent: the server rolled the transaction back.
                try reconnect(after: error, orFail: kind.notApplied)
                if kind.runsAgain || (kind == .read && database.rowsHandedOut == 0) { continue }
                throw StoreError(.unreachable, "Lost the PostgreSQL store at \(target) in the middle of "
                                 + (kind == .read ? "a listing; its output above is incomplete."
                                                  : "the transaction; nothing of it was applied."))
            }
            do {
                try end(kind)
                return result
            } catch let error as StoreError where kind.runsAgain && error.isRetryable && !connection.lost {
                // A serialization failure at COMMIT: nothing was applied; run it again, as one
                // met by a statement.
                try retry(after: error, attempt: &attempt, since: started)
            } catch where connection.lost {
                // In doubt: COMMIT was sent, its answer lost. Without a write id nothing was written.
                guard let id = committingId, kind.commits else { return result }
                try reconnect(after: error, orFail: "whether this change was applied is not known: it would be recorded "
                              + "under write id \(id) in the store's write_ids table")
                if try wasApplied(id) { return result }
                if !kind.runsAgain {
                    throw StoreError(.unreachable, "Lost the PostgreSQL store at \(target) while committing; "
                                     + "nothing of the transaction was applied.")
                }
            }
        }
    }

    /// After a write transaction lost a race (rolled back, nothing applied): waits a random
    /// time between half and all of 2, 4, 8 ... ms (at most 256 ms), so losers of the same race
    /// spread out instead of meeting again, before attempt `attempt + 1`; once the race budget
    /// since `started` is spent (or ``maximumAttempts`` reached), throws what the race was. A
    /// transaction whose own work outlasts the budget (a large expiry batch) still gets three
    /// attempts.
    private func retry(after error: StoreError, attempt: inout Int, since started: Date) throws {
        let left = raceBudget - Date().timeIntervalSince(started)
        guard attempt < maximumAttempts, left > 0 || attempt < 3 else { throw Self.raceLost(error, attempts: attempt) }
        racesRetried += 1
        attempt += 1
        let ceiling = 0.001 * Double(1 << min(attempt, 8))
        Thread.sleep(forTimeInterval: min(Double.random(in: ceiling / 2...ceiling), max(left, 0.001)))
    }

    /// The error for a write that lost its race `attempts` times, saying which race it was: a
    /// serialization failure (this transaction and others read and wrote overlapping rows, or
    /// index pages near them, in an order no serial run could give), a deadlock, or a unique
    /// name taken by another console (the operation's own words for it).
    static func raceLost(_ error: StoreError, attempts: Int) -> StoreError {
        let message = switch error.sqlState {
        case "40001": "PostgreSQL stopped this change with a serialization failure (SQLSTATE 40001) \(attempts) times: "
            + "other consoles' transactions read and wrote the same rows, or rows stored beside them, at the same "
            + "moment. Nothing was changed; try again."
        case "40P01": "PostgreSQL stopped this change as a deadlock (SQLSTATE 40P01) \(attempts) times: it and other "
            + "consoles' transactions waited for each other. Nothing was changed; try again."
        default: error.message + " Gave up after \(attempts) attempts; nothing was changed."
        }
        return StoreError(.conflict, message, sqlState: error.sqlState)
    }

    /// The write id of the transaction ``end(_:)`` last tried to commit.
    private var committingId: String?

    /// BEGIN and `body`; ROLLBACK when `body` throws. The transaction stays open on return.
    private func attemptBody<T>(_ kind: Kind, writeId: String?, _ body: () throws -> T) throws -> T {
        database.rowsHandedOut = 0
        try begin(kind, writeId: writeId)
        open = OpenTransaction(kind: kind, writeId: writeId)
        do {
            return try body()
        } catch {
            open = nil
            rollBack()
            throw error
        }
    }

    /// Ends the open transaction as its kind says.
    private func end(_ kind: Kind) throws {
        committingId = open?.writeId
        open = nil
        do {
            try database.mapped { try connection.execute(kind.commits ? "COMMIT" : "ROLLBACK") }
        } catch {
            rollBack()
            throw error
        }
    }

    /// BEGIN and what must go with it: behind a transaction pooler the lock timeout
    /// (`SET LOCAL`), for a write or a session who runs what (`application_name`), and for a
    /// write its id. They wait to go in one round trip with the transaction's first statement
    /// (``PostgresConnection/sendWithNext(_:)``), one wait for the server fewer per transaction;
    /// one that fails fails that statement. A connection found closed (a restart, a failover, an
    /// idle timeout) is opened again first.
    private func begin(_ kind: Kind, writeId: String?) throws {
        if !connection.isConnected || connection.lost { try reconnect(after: nil, orFail: kind.notApplied) }
        var statements = ["BEGIN ISOLATION LEVEL \(kind.isolation)"]
        if let settings = settingsStatement(kind) { statements.append(settings) }
        if let writeId { statements.append(Self.insertWriteId(writeId)) }
        let sent = statements.map { connection.sendWithNext(.init($0, named: false)) }
        // A read before a write begins (``PostgresDatabase/readBeforeBegin(_:)``) is a
        // transaction of its own, READ COMMITTED: it takes no predicate locks.
        database.waitingBegin = kind == .read ? nil
            : (sent[0], ["BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"] + [settingsStatement(.read)].compactMap { $0 })
    }

    /// After a failure inside the transaction: ROLLBACK, unless the connection is lost (the
    /// server rolled it back). What still waits to be sent (the BEGIN itself, when nothing
    /// else was sent) is dropped, not sent only to be rolled back.
    private func rollBack() {
        connection.dropWaiting()
        if !connection.lost { _ = try? connection.execute("ROLLBACK") }
    }

    /// Inside a session, a nested session or a write: the write id, so a COMMIT in doubt can be
    /// resolved.
    private func recordWriteId() throws {
        guard var transaction = open, transaction.writeId == nil else { return }
        let id = UUID().uuidString.lowercased()
        try database.mapped { try connection.execute(Self.insertWriteId(id)) }
        transaction.writeId = id
        open = transaction
    }

    /// After a COMMIT in doubt: inserts the write id again in a transaction that is rolled back.
    /// Taken (23505): the lost COMMIT happened. Inserted: it did not (and a transaction still
    /// holding the id on a server that outlived its client was waited for).
    private func wasApplied(_ id: String) throws -> Bool {
        while true {
            do {
                try database.mapped {
                    try connection.executeScript("BEGIN; " + Self.lockTimeoutStatement(busyTimeout, local: true) + "; "
                                                 + Self.insertWriteId(id) + "; ROLLBACK")
                }
                return false
            } catch let error as StoreError where error.sqlState == "23505" {
                _ = try? connection.execute("ROLLBACK")
                return true
            } catch where connection.lost {
                try reconnect(after: error, orFail: "whether this change was applied is not known: it would be recorded "
                              + "under write id \(id) in the store's write_ids table")
            } catch let error as StoreError where error.kind == .busy {
                _ = try? connection.execute("ROLLBACK")
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    // MARK: - Connecting again

    /// The window the connection has been lost in, from the first loss of the transaction in
    /// progress (``run(_:_:)``) until it ends: connecting again does not start a new one, so a
    /// server that keeps accepting connections and losing them (PgBouncer whose server is
    /// gone) fails the command after ``Options/reconnectSeconds`` too.
    private var lossWindow: Backoff?

    /// Connects again through the URL's hosts, waiting 50 ms, 100 ms, ... up to 1 s between
    /// tries, within the loss window; then throws `.unreachable` ending with `outcome` (what
    /// became of the change in progress) and the last reason the server, or a pooler in front
    /// of it, gave for ending a session (`lost`, the failure that found the connection lost,
    /// or a later one): a pooler that takes every login and ends the session at its first
    /// query says there why (its own server logins failing).
    private func reconnect(after lost: (any Error)?, orFail outcome: String) throws {
        let continuing = lossWindow != nil
        var backoff = lossWindow ?? Backoff(seconds: options.reconnectSeconds)
        defer { lossWindow = backoff }
        var reason = lost.map(endingReason)
        func failure() -> StoreError {
            StoreError(.unreachable, "Lost the PostgreSQL store at \(target) and could not connect again "
                       + "within \(Self.seconds(options.reconnectSeconds)) s; \(outcome)."
                       + (reason.map { " The server's last word: \($0)." } ?? ""))
        }
        if continuing && backoff.elapsed >= backoff.seconds { throw failure() }
        while true {
            if connection.reset(deadline: backoff.deadline) {
                do {
                    try database.mapped { try Self.configureSession(connection, pooler: pooler, busyTimeout: busyTimeout) }
                    let reconnection = StoreReconnection(host: connection.connectedHost, seconds: backoff.elapsed)
                    reconnections.withLock { $0.append(reconnection) }
                    return
                } catch where connection.lost {
                    reason = endingReason(error)
                }
            }
            guard backoff.pause() else { throw failure() }
        }
    }

    /// What a failure that lost the connection says of why, without the store's name that the
    /// message around it names already.
    private func endingReason(_ error: any Error) -> String {
        let reason = (error as? StoreError).map { $0.lossReason ?? $0.message }
            ?? (error as? PostgresError).map { $0.lossReason ?? $0.message } ?? "\(error)"
        return reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }

    /// The id is a lower-case UUID made here: only hex digits and dashes go into the SQL text.
    private static func insertWriteId(_ id: String) -> String {
        "INSERT INTO write_ids (id, at) VALUES ('\(id)', extract(epoch FROM now()))"
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: - The rest of StoreEngine

    /// Nothing to do: the one connection is open since `init`.
    func openAllConnections() throws {}

    /// PostgreSQL checks its own storage (page checksums, `amcheck`); the store has nothing of
    /// its own to add, so this is the server's answer that the connection and schema are usable.
    func integrityProblems() throws -> [String] {
        try read { db in _ = try db.value(Int.self, literal: "SELECT count(*) FROM schema_migrations") }
        return ["ok"]
    }

    func schemaVersion() throws -> String? {
        try read { _ in try database.mapped { try PostgresMigrations.version(connection) } }
    }
}
