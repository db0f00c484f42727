import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The embedded engine: one SQLite file in WAL mode that several processes use at once, through
/// GRDB. Writes are IMMEDIATE transactions (one writer at a time; waiting for another process's
/// write lock past the busy timeout is `.busy`); reads run on a pool of readers.
final class SQLiteEngine: StoreEngine {
    let path: String
    let busyTimeout: TimeInterval
    let dbPool: DatabasePool
    /// Checkpoints beside the writer instead of in its commits.
    let checkpointer: WALCheckpointer
    var dialect: StoreDialect { .sqlite }
    /// `limits.snapshotSeconds` (``SnapshotWatch``), for the reads and sessions begun after it is set.
    private let snapshotLimit = Mutex(SnapshotWatch.defaultSeconds)
    /// The size (bytes) the `-wal` file is truncated to after a checkpoint: the 2,000 pages at
    /// which the writer catches up with the checkpoints (``WALCheckpointer``; 8 MiB of 4 KiB
    /// pages) fit, so a store in steady use does not truncate and grow it again every time.
    static let walSizeLimit = 8 << 20

    init(path: String, busyTimeout: TimeInterval, opening: FormStore.Opening) throws {
        self.path = path
        self.busyTimeout = busyTimeout
        try Self.prepareFile(path, opening: opening)
        let checkpointer = WALCheckpointer(path: path)
        self.checkpointer = checkpointer
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.label = "miadmin.store"
        // Readers are opened ahead by openAllConnections() in a process that then loses the right
        // to open the file: they must never be closed to save memory.
        configuration.persistentReadOnlyConnections = true
        configuration.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            let code = Self.keepWALFiles(db.sqliteConnection!)
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
            // A -wal file that grew while a reader held back the checkpoints is cut back to this
            // size when it is next reset, instead of keeping its largest size on the disk.
            try db.execute(sql: "PRAGMA journal_size_limit = \(SQLiteEngine.walSizeLimit)")
            checkpointer.install(on: db.sqliteConnection!)
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
    }

    /// Persistent WAL, on every read-write connection (the pool's writer, the checkpointer's):
    /// whichever closes last does not delete the -wal and -shm files, so they keep the owner and
    /// mode they were made with (root:miadmin 0660 by the install). A file a console recreated
    /// would belong to whoever ran it, who could then read it through the console's own
    /// descriptors (docs/security.md). SQLite's result code.
    static func keepWALFiles(_ connection: OpaquePointer) -> CInt {
        var flag: CInt = 1
        return sqlite3_file_control(connection, nil, SQLITE_FCNTL_PERSIST_WAL, &flag)
    }

    func setSnapshotLimit(_ seconds: TimeInterval) { snapshotLimit.withLock { $0 = seconds } }

    /// On the way out, no `journal_size_limit`: the last connection to close checkpoints the
    /// store, and with a limit set it truncates the `-wal` file to nothing; the next process's
    /// pool, finding it empty, writes a frame as it opens (GRDB makes sure its readers find a
    /// non-empty `-wal`), which reads SQLite's random seed and syncs the store's folder while
    /// the installed binary still holds its group (docs/security.md). Without the limit the
    /// checkpointed file keeps its size (the limit cut it back at every checkpoint while the
    /// store was open), and the next open writes nothing.
    ///
    /// The checkpointer's hook goes first, then the checkpointer ends (a checkpoint under way
    /// finishes) and closes its connection: the pool closes after it, and the pool's last
    /// connection to close does that checkpoint.
    deinit {
        try? dbPool.writeWithoutTransaction { db in
            sqlite3_wal_hook(db.sqliteConnection, nil, nil)
            try db.execute(sql: "PRAGMA journal_size_limit = -1")
        }
        checkpointer.stop()
    }

    /// Refuses a missing file for `.existingOnly`; creates it with the mode asked for otherwise
    /// (SQLite then gives its `-wal` and `-shm` files the same mode).
    private static func prepareFile(_ path: String, opening: FormStore.Opening) throws {
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

    /// Applies pending migrations (``Migrations``), in one IMMEDIATE transaction: two processes
    /// opening a new file at once take turns, and the second finds the work done. A store that
    /// holds a migration this binary does not know was migrated by a newer miadmin: it is
    /// refused (`.newerSchema`), naming both schema versions, before anything is written.
    ///
    /// Stores made before `schema_migrations` recorded their migrations in GRDB's
    /// `grdb_migrations`: their identifiers are copied over once, and migrations applied later are
    /// recorded in both, so that an older miadmin (which reads only `grdb_migrations`) still
    /// refuses a store migrated by a newer one.
    private func migrate() throws {
        // Up to date: no write at all, so opening the store never waits for another process's
        // write lock.
        let upToDate = try mapped {
            try dbPool.read { db in
                try db.tableExists("schema_migrations")
                    && Migrations.pending(applied: Self.appliedMigrations(db), at: path).isEmpty
            }
        }
        if upToDate { return }
        try mapped {
            try dbPool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let applied = try Self.appliedMigrations(db)
                    let legacy = try db.tableExists("grdb_migrations")
                    try db.execute(sql: SchemaDialect.sqlite.stateTable)
                    for id in applied {
                        try db.execute(sql: "INSERT OR IGNORE INTO schema_migrations (id) VALUES (?)", arguments: [id])
                    }
                    for migration in try Migrations.pending(applied: applied, at: path) {
                        try db.execute(sql: migration.sql(for: .sqlite))
                        try db.execute(sql: "INSERT INTO schema_migrations (id) VALUES (?)", arguments: [migration.id])
                        if legacy {
                            try db.execute(sql: "INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)",
                                           arguments: [migration.id])
                        }
                    }
                    return .commit
                }
            }
        }
    }

    /// What a store applied: `schema_migrations`, and `grdb_migrations` where a store made before
    /// it still has that table.
    private static func appliedMigrations(_ db: Database) throws -> Set<String> {
        var applied = Set<String>()
        if try db.tableExists("schema_migrations") {
            applied.formUnion(try String.fetchAll(db, sql: "SELECT id FROM schema_migrations"))
        }
        if try db.tableExists("grdb_migrations") {
            applied.formUnion(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        return applied
    }

    func schemaVersion() throws -> String? {
        Migrations.version(applied: try mapped { try dbPool.read(Self.appliedMigrations) })
    }

    /// Readers are taken at once by as many threads, each holding its read until all have one,
    /// so the pool must open every one of them (GRDB opens a reader only when all existing ones
    /// are busy, and never closes them: `persistentReadOnlyConnections`).
    func openAllConnections() throws {
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
        checkpointer.openNow()
        allInside.wait()
        for _ in 0..<count { release.signal() }
        finished.wait()
        if let error = failures.withLock({ $0.first }) { throw StoreError.mapping(error, busyTimeout: busyTimeout) }
    }

    func integrityProblems() throws -> [String] {
        try readWholeStore { db in try db.values(String.self, literal: "PRAGMA integrity_check") }
    }

    /// What GRDB's `inTransaction(.immediate)` does, with BEGIN and COMMIT prepared once per
    /// connection instead of at every change: GRDB prepares both from their text each time,
    /// which showed in a move script's profile (docs/benchmarks.md). As there, a failed
    /// change or COMMIT is rolled back and its error thrown; a transaction SQLite rolled back
    /// by itself refuses further statements (``SQLiteDatabase``) and its COMMIT.
    func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        try mapped {
            try dbPool.writeWithoutTransaction { db in
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
                do {
                    let result = try body(SQLiteDatabase(db, busyTimeout: busyTimeout, inWriteTransaction: true))
                    try SQLiteDatabase.checkNotAborted(db)
                    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                    return result
                } catch {
                    try? db.rollback()
                    throw error
                }
            }
        }
    }

    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        try read(snapshotLimit: snapshotLimit.withLock { $0 }, body)
    }

    func readWholeStore<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        try read(snapshotLimit: nil, body)
    }

    private func read<T>(snapshotLimit: TimeInterval?, _ body: (any StoreDatabase) throws -> T) throws -> T {
        try mapped {
            try dbPool.unsafeReentrantRead { db in
                let database = SQLiteDatabase(db, busyTimeout: busyTimeout, snapshotLimit: snapshotLimit)
                if db.isInsideTransaction { return try body(database) }
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(database)
                    return .commit
                }
                return result!
            }
        }
    }

    func session<T>(end: FormStore.SessionEnd, _ body: (any StoreDatabase) throws -> T) throws -> T {
        try mapped {
            try dbPool.writeWithoutTransaction { db in
                // A read transaction until the first change (``SQLiteDatabase/startWriting()``):
                // a session that only reads holds no write lock.
                try db.beginTransaction(.deferred)
                let result: T
                do {
                    result = try body(SQLiteDatabase(db, busyTimeout: busyTimeout, readingSession: true,
                                                     snapshotLimit: snapshotLimit.withLock { $0 }))
                } catch {
                    try? db.rollback()
                    throw error
                }
                switch end {
                case .commit: try db.commit()
                case .rollback: try db.rollback()
                }
                return result
            }
        }
    }

    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw namingHolder(StoreError.mapping(error, busyTimeout: busyTimeout))
        } catch let error as StoreError {
            throw namingHolder(error)
        }
    }

    /// A busy error names who holds the write lock (``SQLiteLockHolder``), looked for once.
    private func namingHolder(_ error: any Error) -> any Error {
        guard let error = error as? StoreError, error.kind == .busy, !error.holderSought else { return error }
        return StoreError.sqliteBusy(busyTimeout, code: error.sqliteCode, holder: SQLiteLockHolder.find(storePath: path),
                                     sought: true)
    }
}
