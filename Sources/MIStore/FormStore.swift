import MIPostgres
import Foundation
import Logging
import Synchronization

/// The shared store of forms, media, foreman comments, notices and the audit trail: one SQLite
/// file in WAL mode that several processes (foremen's consoles, cron jobs) use at once, or one
/// PostgreSQL database that consoles on many hosts share (``StoreEngine``).
///
/// Open it once per process and share the instance (it is `Sendable`). Every change runs in one
/// transaction together with its audit row, so it happens completely or not at all.
/// When another process holds the write lock longer than ``busyTimeout``, the call throws a
/// ``StoreError`` of kind `.busy`.
///
/// All methods throw ``StoreError``; the `forEach...` methods also rethrow, unchanged, whatever
/// their `body` throws. The store never prints and never reads the terminal. See docs/store.md.
public final class FormStore: Sendable {
    /// Where the store is, for messages: the SQLite file's path, or the PostgreSQL hosts and
    /// database (`db1:5432,db2:5432/mi`, never a password).
    public let path: String
    /// How long (seconds) a change waits for another process's write to finish before `.busy`.
    public let busyTimeout: TimeInterval

    let engine: any StoreEngine
    /// `store.readUrl`'s standby, for listings (``readListing(_:)``); nil without one.
    let standby: StandbyReads?
    let clock: any StoreClock
    let logger: Logger
    /// ``reach``'s value: set after login and whenever the session reads its crews again, read
    /// by every form query and change.
    let reachState = Mutex(Reach.everyone)
    /// Where committed audit rows are copied to (``setAuditRelay(_:)``).
    let relayState = AuditRelayState()

    /// A logger that drops everything, the default when the caller passes none.
    public static let silentLogger = Logger(label: "miadmin.store", factory: { _ in SwiftLogNoOpLogHandler() })

    /// How ``init(path:busyTimeout:clock:logger:opening:)`` treats a missing file.
    public enum Opening: Sendable, Equatable {
        /// Create the file and its schema if missing (a developer's or a test's store).
        case createIfMissing
        /// Create the file with exactly these permission bits (0660 for the shared store) if
        /// missing; the store's folder decides its group (setgid folder) or the process does.
        case createIfMissingWithMode(mode_t)
        /// The file must exist: a mistyped `store.path` must not silently start an empty store.
        case existingOnly
    }

    /// Opens the SQLite store at `path`, creating the file and its schema if needed (see `opening`).
    ///
    /// - Parameters:
    ///   - busyTimeout: seconds to wait for another process's write lock before throwing `.busy`.
    ///   - clock: where "now" comes from (audit times, notices, `olderThanDays`).
    ///   - logger: receives debug/info lines; nothing is logged that a message would not show.
    ///   - opening: what to do when the file does not exist (`.notFound` for `.existingOnly`).
    public init(path: String, busyTimeout: TimeInterval = 5, clock: any StoreClock = SystemClock(),
                logger: Logger = FormStore.silentLogger, opening: Opening = .createIfMissing) throws {
        try Self.checkBusyTimeout(busyTimeout)
        self.path = path
        self.busyTimeout = busyTimeout
        self.clock = clock
        self.logger = logger
        engine = try SQLiteEngine(path: path, busyTimeout: busyTimeout, opening: opening)
        standby = nil
        logger.debug("store opened", metadata: ["path": "\(path)"])
    }

    /// Opens the PostgreSQL store at `target` (``PostgresTarget``: `store.url`), creating its
    /// schema if the database is empty (under an advisory lock: two consoles starting at once do
    /// not race).
    ///
    /// - Parameters:
    ///   - password: the first line of `store.passwordFile`, or nil for libpq's own conventions.
    ///   - conventions: `.ignored` in a privileged console (`PG*` variables, `~/.pgpass`,
    ///     `~/.postgresql/` are the invoking user's, not the store's).
    ///   - busyTimeout: seconds to wait for another console's row lock (`lock_timeout`).
    ///   - pooler: `store.pooler`; nil finds out whether a pooler answers (``PostgresPooler``).
    ///   - reconnectSeconds: `store.reconnectSeconds`, how long a lost connection is tried again
    ///     before a command fails (``PostgresEngine``).
    ///   - readTarget: `store.readUrl`, a hot standby for listings, `audit`, `check` and `report`
    ///     (``StandbyReads``), opened on first use with the same password and conventions.
    ///   - maxLagSeconds: `store.maxLagSeconds`: a standby further behind is said to lag.
    /// - Throws: ``StoreError`` `.unreachable`, `.authentication`, `.configuration` or
    ///   `.newerSchema`, with messages that name the host and never the password.
    public init(postgres target: PostgresTarget, password: String?,
                conventions: PostgresConnection.UserConventions = .honoured, busyTimeout: TimeInterval = 5,
                pooler: PostgresPooler? = nil, reconnectSeconds: TimeInterval = 30,
                readTarget: PostgresTarget? = nil, maxLagSeconds: Double = 30,
                clock: any StoreClock = SystemClock(), logger: Logger = FormStore.silentLogger) throws {
        try Self.checkBusyTimeout(busyTimeout)
        self.path = target.description
        self.busyTimeout = busyTimeout
        self.clock = clock
        self.logger = logger
        engine = try PostgresEngine(target: target, password: password, conventions: conventions,
                                    busyTimeout: busyTimeout,
                                    options: .init(pooler: pooler, reconnectSeconds: reconnectSeconds))
        standby = readTarget.map { readTarget in
            StandbyReads(target: readTarget, maxLagSeconds: maxLagSeconds) {
                // A standby that is down costs a listing a short wait, then the primary answers.
                try PostgresEngine(target: readTarget, password: password, conventions: conventions, busyTimeout: busyTimeout,
                                   options: .init(pooler: pooler, reconnectSeconds: min(reconnectSeconds, 2), readOnly: true))
            }
        }
        logger.debug("store opened", metadata: ["postgres": "\(target)"])
    }

    private static func checkBusyTimeout(_ busyTimeout: TimeInterval) throws {
        guard busyTimeout >= 0, busyTimeout.isFinite else {
            throw StoreError(.invalidInput, "The busy timeout must be zero or more seconds.")
        }
    }

    /// Which engine holds the store: "sqlite" or "postgres".
    public var engineName: String { engine.dialect.engine.rawValue }

    /// Who runs what on this store now (`mkhan expire`, set by the console before each
    /// command), so that another console kept waiting can name it (``StoreHolder``: on
    /// PostgreSQL; SQLite names the process holding its write lock instead).
    public func setActivity(_ text: String?) { engine.setActivity(text) }

    /// How long one read of a SQLite store may keep its snapshot (`limits.snapshotSeconds`,
    /// default 60): a longer one ends with ``StoreError/Kind-swift.struct/snapshotTooOld``.
    public func setSnapshotLimit(seconds: TimeInterval) { engine.setSnapshotLimit(seconds) }

    /// Opens every connection the store will ever use now, for a process about to give up the
    /// rights to open the file (docs/security.md). On SQLite this opens the pool's readers, each
    /// with its `-wal` and `-shm` files; afterwards reads and writes use these connections only.
    /// On PostgreSQL the one connection is open already.
    public func openAllConnections() throws { try engine.openAllConnections() }

    /// The pooler mode the PostgreSQL connection works in (configured or found); nil on SQLite.
    public var postgresPooler: PostgresPooler? { (engine as? PostgresEngine)?.pooler }

    /// Runs `body` in one write transaction (IMMEDIATE on SQLite, SERIALIZABLE with bounded
    /// retries on PostgreSQL); errors are ``StoreError``s. Inside a session transaction, its
    /// first write takes the write lock (``StoreDatabase/startWriting()``).
    @discardableResult
    func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        if let session = SessionConnection.of(self) {
            // Inside --atomic / --dry-run: a savepoint, so a failed command undoes only itself.
            try session.db.startWriting()
            return try PendingAudit.keeping { try session.db.inSavepoint(rollback: false) { try body(session.db) } }
        }
        return try relayingAudit { attempt in try engine.write { db in attempt(); return try body(db) } }
    }

    /// Runs `body` on a consistent snapshot (one read transaction); errors become ``StoreError``
    /// (others pass unchanged).
    ///
    /// Reentrant: a read started inside another (a store call from a `forEach...` body) runs on the
    /// same connection and snapshot.
    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        if let session = SessionConnection.of(self) { return try body(session.db) }
        return try engine.read(body)
    }

    /// ``read(_:)`` for a copy or an export of the store, which must see it at one moment
    /// however long that takes (``StoreEngine/readWholeStore(_:)``).
    func readWholeStore<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        if let session = SessionConnection.of(self) { return try body(session.db) }
        return try engine.readWholeStore(body)
    }

    /// Now, as stored: seconds since 1970 (UTC).
    func nowSeconds() -> Double { clock.now().timeIntervalSince1970 }
}
