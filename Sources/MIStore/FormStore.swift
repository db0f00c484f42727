import Foundation
import GRDB
import Logging

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

    /// Opens the store at `path`, creating the file and its schema if needed.
    ///
    /// - Parameters:
    ///   - busyTimeout: seconds to wait for another process's write lock before throwing `.busy`.
    ///   - clock: where "now" comes from (audit times, notices, `olderThanDays`).
    ///   - logger: receives debug/info lines; nothing is logged that a message would not show.
    public init(path: String, busyTimeout: TimeInterval = 5, clock: any StoreClock = SystemClock(),
                logger: Logger = FormStore.silentLogger) throws {
        guard busyTimeout >= 0, busyTimeout.isFinite else {
            throw StoreError(.invalidInput, "The busy timeout must be zero or more seconds.")
        }
        self.path = path
        self.busyTimeout = busyTimeout
        self.clock = clock
        self.logger = logger
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "miadmin.store"
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
