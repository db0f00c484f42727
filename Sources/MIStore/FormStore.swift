import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// The shared store of forms, media, foreman comments, notices and the audit trail: one SQLite
/// file in WAL mode that several processes (foremen's consoles, cron jobs) use at once.
///
/// Open it once per process and share the instance (it is `Sendable`). Every change runs in one
/// IMMEDIATE transaction together with its audit row, so it happens completely or not at all.
/// When another process holds the write lock longer than ``busyTimeout``, the call throws a
/// ``StoreError`` of kind `.busy`.
///
/// All methods throw ``StoreError``; the `forEach...` methods also rethrow, unchanged, whatever
/// their `body` throws. The store never prints and never reads the terminal. See docs/store.md.
public final class FormStore: Sendable {
    /// The database file.
    public let path: String
    /// How long (seconds) a change waits for another process's write to finish before `.busy`.
    public let busyTimeout: TimeInterval

    let dbPool: DatabasePool
    let clock: any StoreClock
    let logger: Logger

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

    /// Opens the store at `path`, creating the file and its schema if needed (see `opening`).
    ///
    /// - Parameters:
    ///   - busyTimeout: seconds to wait for another process's write lock before throwing `.busy`.
    ///   - clock: where "now" comes from (audit times, notices, `olderThanDays`).
    ///   - logger: receives debug/info lines; nothing is logged that a message would not show.
    ///   - opening: what to do when the file does not exist (`.notFound` for `.existingOnly`).
    public init(path: String, busyTimeout: TimeInterval = 5, clock: any StoreClock = SystemClock(),
                logger: Logger = FormStore.silentLogger, opening: Opening = .createIfMissing) throws {
        guard busyTimeout >= 0, busyTimeout.isFinite else {
            throw StoreError(.invalidInput, "The busy timeout must be zero or more seconds.")
        }
        self.path = path
        self.busyTimeout = busyTimeout
        self.clock = clock
        self.logger = logger
        try Self.prepareFile(path, opening: opening)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "miadmin.store"
        // Readers are opened ahead by openAllConnections() in a process that then loses the right
        // to open the file: they must never be closed to save memory.
        configuration.persistentReadOnlyConnections = true
        configuration.prepareDatabase { db in
            // Persistent WAL: the last connection to close does not delete the -wal and -shm
            // files, so they keep the owner and mode they were made with (root:miadmin 0660 by
            // the install). A file a console recreated would belong to whoever ran it, who could
            // then read it through the console's own descriptors (docs/security.md).
            guard !db.configuration.readonly else { return }
            var flag: CInt = 1
            let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &flag)
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        }
        do {
            dbPool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
            throw StoreError(.io, "Cannot open the store at \(path): \(error.message ?? "cannot open file").", path: path,
                             sqliteCode: error.extendedResultCode.rawValue)
        } catch {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
        try migrate()
        logger.debug("store opened", metadata: ["path": "\(path)"])
    }

    /// Refuses a missing file for `.existingOnly`; creates it with the mode asked for otherwise
    /// (SQLite then gives its `-wal` and `-shm` files the same mode).
    private static func prepareFile(_ path: String, opening: Opening) throws {
        switch opening {
        case .createIfMissing:
            return
        case .existingOnly:
            var info = stat()
            if stat(path, &info) != 0 && errno == ENOENT {
                throw StoreError(.notFound, "There is no store at \(path) (store.path in the config). "
                                 + "Check the path; a new store is created only on purpose (miadmin --init-store).", path: path)
            }
        case .createIfMissingWithMode(let mode):
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd < 0 {
                if errno == EEXIST { return }
                throw StoreError(.io, "Cannot create the store at \(path): \(String(cString: strerror(errno))).", path: path)
            }
            fchmod(fd, mode)  // the umask must not loosen or tighten what was asked
            close(fd)
        }
    }

    /// Opens every connection the store will ever use now (the writer is open already; this
    /// opens the readers, each with its `-wal` and `-shm` files), for a process about to give up
    /// the rights to open the file (docs/security.md). Afterwards reads and writes use these
    /// connections only: GRDB opens a reader only when all existing ones are busy, never more
    /// than `maximumReaderCount`, and never closes them (`persistentReadOnlyConnections`).
    ///
    /// The readers are taken at once by as many threads, each holding its read until all have
    /// one, so the pool must open every one of them.
    public func openAllConnections() throws {
        let count = dbPool.configuration.maximumReaderCount
        let allInside = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let failures = Mutex<[Error]>([])
        for _ in 0..<count {
            allInside.enter()
            finished.enter()
            let thread = Thread { [dbPool] in
                defer { finished.leave() }
                do {
                    try dbPool.read { db in
                        // A statement, so the connection really takes a snapshot (opens -wal/-shm).
                        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                        allInside.leave()
                        release.wait()
                    }
                } catch {
                    failures.withLock { $0.append(error) }
                    allInside.leave()
                }
            }
            thread.start()
        }
        allInside.wait()
        for _ in 0..<count { release.signal() }
        finished.wait()
        if let error = failures.withLock({ $0.first }) { throw StoreError.mapping(error, busyTimeout: busyTimeout) }
    }

    /// Applies pending migrations. Two processes opening a new file at once may both try;
    /// the loser finds the work done. A store that holds a migration this binary does not know
    /// was migrated by a newer miadmin: it is refused (`.newerSchema`), naming both schema
    /// versions, before anything is written — an older binary would write rows the newer schema
    /// does not expect.
    private func migrate() throws {
        let migrator = Migrations.migrator
        let applied: Set<String>
        do {
            applied = try dbPool.read { try migrator.appliedIdentifiers($0) }
        } catch {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
        let unknown = applied.subtracting(Migrations.identifiers).sorted()
        if !unknown.isEmpty {
            throw StoreError(.newerSchema, "The store at \(path) has schema version \(unknown.last!), from a newer miadmin; "
                + "this miadmin knows schema versions up to \(Migrations.identifiers.last!). Use the newer miadmin: "
                + "this one does not read or write the store.", path: path)
        }
        // Up to date: no write at all, so opening the store never waits for another process's
        // write lock (the migrator takes it even when it has nothing to do).
        if Set(Migrations.identifiers).isSubset(of: applied) { return }
        do {
            try migrator.migrate(dbPool)
        } catch {
            let done = (try? dbPool.read { try migrator.hasCompletedMigrations($0) }) ?? false
            if !done { throw StoreError.mapping(error, busyTimeout: busyTimeout) }
        }
    }

    /// Runs `body` in one IMMEDIATE write transaction; errors become ``StoreError``.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        if let session = SessionConnection.current {
            // Inside --atomic / --dry-run: a savepoint, so a failed command undoes only itself.
            do {
                var result: T?
                try session.db.inSavepoint {
                    result = try body(session.db)
                    return .commit
                }
                return result!
            } catch {
                throw StoreError.mapping(error, busyTimeout: busyTimeout)
            }
        }
        do {
            return try dbPool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
    }

    /// Runs `body` on a consistent snapshot (one read transaction); errors become ``StoreError``
    /// (others pass unchanged).
    ///
    /// Reentrant: a read started inside another (a store call from a `forEach...` body) runs on the
    /// same connection and snapshot instead of tripping GRDB's reentrancy check.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let session = SessionConnection.current {
            do { return try body(session.db) } catch { throw StoreError.mapping(error, busyTimeout: busyTimeout) }
        }
        do {
            return try dbPool.unsafeReentrantRead { db in
                if db.isInsideTransaction { return try body(db) }
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        } catch {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
    }

    /// Now, as stored: seconds since 1970 (UTC).
    func nowSeconds() -> Double { clock.now().timeIntervalSince1970 }
}
