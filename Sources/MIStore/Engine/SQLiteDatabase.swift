import Foundation
import GRDB
import GRDBSQLite

/// ``StoreDatabase`` on a GRDB connection: the SQLite engine's half of every operation.
/// Statements are cached per connection (a script of moves runs the same few thousands of times);
/// GRDB's errors become ``StoreError``s here.
final class SQLiteDatabase: StoreDatabase {
    let db: Database
    let busyTimeout: TimeInterval
    var dialect: StoreDialect { .sqlite }

    /// True while a session transaction has only read (``SQLiteEngine/session(end:_:)`` begins
    /// it DEFERRED): its first change takes the write lock (``startWriting()``).
    private var readingSession: Bool
    /// True inside a write the engine began itself (``SQLiteEngine/write(_:)``): a statement
    /// after an error that rolled the transaction back is refused, as GRDB refuses it inside
    /// its own transaction blocks, instead of running outside any transaction.
    private let inWriteTransaction: Bool
    /// The age of the read snapshot in use, for a read or a session that has only read (nil
    /// for writes): ``SnapshotWatch``.
    private var snapshot: SnapshotWatch?
    private let snapshotLimit: TimeInterval?

    /// `snapshotLimit`: `limits.snapshotSeconds` for a read or a session (``SnapshotWatch``).
    init(_ db: Database, busyTimeout: TimeInterval, readingSession: Bool = false, inWriteTransaction: Bool = false,
         snapshotLimit: TimeInterval? = nil) {
        self.db = db
        self.busyTimeout = busyTimeout
        self.readingSession = readingSession
        self.inWriteTransaction = inWriteTransaction
        self.snapshotLimit = snapshotLimit
        snapshot = snapshotLimit.map(SnapshotWatch.init(limit:))
    }

    /// Before a statement and at each row: a read older than the limit ends here.
    private func checkSnapshot() throws {
        try snapshot?.check()
    }

    /// Before a statement of a write the engine began: refused once SQLite rolled it back.
    private func checkUsable(sql: String? = nil) throws {
        if inWriteTransaction { try Self.checkNotAborted(db, sql: sql) }
    }

    /// GRDB's error for a statement in a transaction that SQLite has already rolled back.
    static func checkNotAborted(_ db: Database, sql: String? = nil) throws {
        guard sqlite3_get_autocommit(db.sqliteConnection) != 0 else { return }
        throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted", sql: sql)
    }

    /// The session's first change: the read transaction (nothing written in it) is given up and
    /// an IMMEDIATE one begun, which waits for another console's write up to the busy timeout as
    /// every change does. A read snapshot cannot wait to become a writer in SQLite (it fails at
    /// once when another console writes), hence the new transaction. The reads before the first
    /// change saw the store as it was then; every change checks its form again in its own
    /// statements. While a listing is still stepping through rows on this connection (a change
    /// made from inside it), the transaction is kept and the change takes the lock as it can.
    func startWriting() throws {
        guard readingSession else { return }
        readingSession = false
        snapshot = nil
        try mapped {
            guard db.isInsideTransaction, !hasStatementInProgress else { return }
            try db.rollback()
            try db.beginTransaction(.immediate)
        }
    }

    /// Ends the read transaction of a session that has only read and begins another, DEFERRED:
    /// it takes its snapshot at its first read, so between commands the session holds none.
    func endReadSnapshot() throws {
        guard readingSession else { return }
        try mapped {
            guard db.isInsideTransaction, !hasStatementInProgress else { return }
            try db.commit()
            try db.beginTransaction(.deferred)
        }
        snapshot = snapshotLimit.map(SnapshotWatch.init(limit:))
    }

    /// Whether a statement on this connection has started stepping and not finished.
    private var hasStatementInProgress: Bool {
        var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { return true }
            statement = sqlite3_next_stmt(db.sqliteConnection, current)
        }
        return false
    }

    private func execute(text sql: String, _ arguments: StoreArguments) throws -> Int {
        try mapped {
            try checkUsable(sql: sql)
            let statement = try db.cachedStatement(sql: sql)
            if try !runDirectly(statement, sql: sql, arguments, { _ in }) {
                try statement.execute(arguments: Self.bind(arguments))
            }
            return db.changesCount
        }
    }

    private func forEachRow(text sql: String, _ arguments: StoreArguments, _ body: (StoreRow) throws -> Void) throws {
        // A statement of its own (not the cached one): `body` may run this same SQL again.
        let statement = try mapped {
            try checkUsable(sql: sql)
            return try db.makeStatement(sql: sql)
        }
        try step(statement, arguments, body)
    }

    // SQLite binds `?` in order and parses the text itself: the rendered text is the statement.
    func execute(literal sql: StoreSQL) throws -> Int {
        let (text, arguments) = sql.rendered(for: dialect)
        return try execute(text: text, arguments)
    }

    func forEachRow(literal sql: StoreSQL, _ body: (StoreRow) throws -> Void) throws {
        let (text, arguments) = sql.rendered(for: dialect)
        try forEachRow(text: text, arguments, body)
    }

    func rows(literal sql: StoreSQL) throws -> [StoreRow] {
        let (text, arguments) = sql.rendered(for: dialect)
        return try rows(text: text, arguments)
    }

    /// Runs `statement` and hands each result row to `body`. Each step's values come straight
    /// from SQLite (as GRDB's DatabaseValue would read them), without a GRDB row of
    /// DatabaseValues in between: listings read a million rows.
    private func step(_ statement: Statement, _ arguments: StoreArguments, _ body: (StoreRow) throws -> Void) throws {
        let columns = StoreColumns(statement.columnNames)
        let cursor = try mapped { try Row.fetchCursor(statement, arguments: Self.bind(arguments)) }
        let sqliteStatement = statement.sqliteStatement
        let count = Int32(columns.names.count)
        try checkSnapshot()
        while try mapped({ try cursor.next() }) != nil {
            try body(StoreRow(columns: columns, values: Self.values(sqliteStatement, count: count)))
            try checkSnapshot()
        }
    }

    /// The current row of a stepped statement.
    static func values(_ statement: SQLiteStatement, count: Int32) -> [StoreValue] {
        var values: [StoreValue] = []
        values.reserveCapacity(Int(count))
        for index in 0..<count {
            switch sqlite3_column_type(statement, index) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(statement, index)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(statement, index)))
            case SQLITE_TEXT:
                let bytes = Int(sqlite3_column_bytes(statement, index))
                let text = sqlite3_column_text(statement, index).map {
                    String(decoding: UnsafeBufferPointer(start: $0, count: bytes), as: UTF8.self)
                } ?? ""
                values.append(.text(text))
            case SQLITE_BLOB:
                let bytes = Int(sqlite3_column_bytes(statement, index))
                values.append(.blob(sqlite3_column_blob(statement, index).map { Data(bytes: $0, count: bytes) } ?? Data()))
            default:
                values.append(.null)
            }
        }
        return values
    }

    private func rows(text sql: String, _ arguments: StoreArguments) throws -> [StoreRow] {
        try checkSnapshot()
        let statement = try mapped {
            try checkUsable(sql: sql)
            return try db.cachedStatement(sql: sql)
        }
        var rows: [StoreRow] = []
        var columns: StoreColumns?
        let ran = try mapped {
            try runDirectly(statement, sql: sql, arguments) { handle in
                let names = columns ?? StoreColumns(statement.columnNames)
                columns = names
                rows.append(StoreRow(columns: names, values: Self.values(handle, count: Int32(names.names.count))))
            }
        }
        if !ran { try step(statement, arguments) { rows.append($0) } }
        return rows
    }

    /// Runs a cached statement of the store's own (a query, an insert, an update, a delete) on
    /// SQLite's statement directly: binds `arguments`, steps to the end and hands `body` each
    /// row. The same calls GRDB makes for it, without its cursor, row and argument objects,
    /// which were a third of the Swift time a move spends on its statements (docs/benchmarks.md).
    ///
    /// Returns false, having done nothing, where GRDB's own execution does more than that and
    /// must run the statement instead: outside a transaction (GRDB refuses a statement after
    /// an error aborted the transaction, and tracks leaving autocommit), for another kind of
    /// statement (a schema change clears GRDB's schema cache; BEGIN and COMMIT move its
    /// transaction state), for a statement still stepping, and for a wrong number of arguments
    /// (GRDB's error says how many). GRDB's other work at each statement is for what the
    /// store never uses: transaction observers, observed regions, suspension.
    private func runDirectly(_ statement: Statement, sql: String, _ arguments: StoreArguments,
                             _ body: (SQLiteStatement) throws -> Void) throws -> Bool {
        let handle = statement.sqliteStatement
        guard sqlite3_get_autocommit(db.sqliteConnection) == 0, sqlite3_stmt_busy(handle) == 0,
              Int(sqlite3_bind_parameter_count(handle)) == arguments.count,
              Self.isQueryOrRowChange(sql) else { return false }
        // A statement that failed last time reports that failure once more here; it was reported then.
        sqlite3_reset(handle)
        for (offset, argument) in arguments.enumerated() {
            Self.bind(argument.storeValue, to: handle, at: CInt(offset + 1))
        }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW:
                try body(handle)
            case SQLITE_DONE:
                return true
            case let code:
                let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                // Reset now, so that GRDB's own use of the cached statement finds it clean.
                sqlite3_reset(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql,
                                    arguments: Self.bind(arguments))
            }
        }
    }

    /// Whether `sql` is a query or a change of rows: its first word is SELECT, VALUES, WITH,
    /// INSERT, REPLACE, UPDATE or DELETE (any case, after white space). Not a schema change,
    /// a pragma or a transaction's BEGIN, COMMIT or SAVEPOINT, whose effects GRDB tracks.
    static func isQueryOrRowChange(_ sql: String) -> Bool {
        var word: UInt64 = 0  // the word's letters in upper case, one byte each
        var length = 0
        for byte in sql.utf8 {
            let upper = byte & 0xDF  // an ASCII letter in upper case; nothing else lands on A...Z
            if (0x41...0x5A).contains(upper) {
                length += 1
                if length > 8 { return false }
                word = word << 8 | UInt64(upper)
            } else if length == 0, byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D {
                continue
            } else {
                break
            }
        }
        return Self.queryAndChangeWords.contains(word)
    }

    private static let queryAndChangeWords: Set<UInt64> = Set(
        ["SELECT", "VALUES", "WITH", "INSERT", "REPLACE", "UPDATE", "DELETE"].map { $0.utf8.reduce(0) { $0 << 8 | UInt64($1) } })

    /// One argument bound as GRDB binds it: text as a C string (SQLite copies it), a blob copied.
    private static func bind(_ value: StoreValue, to handle: SQLiteStatement, at index: CInt) {
        let code: CInt
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
        case .real(let v): code = sqlite3_bind_double(handle, index, v)
        case .text(let v): code = v.withCString { sqlite3_bind_text(handle, index, $0, -1, transient) }
        case .blob(let v): code = v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), transient) }
        }
        // As GRDB: binding fails only on a misuse (an index out of range), never on the data.
        guard code == SQLITE_OK else { fatalError("SQLite refused to bind argument \(index): code \(code)") }
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the bind returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func inSavepoint<T>(rollback: Bool, _ body: () throws -> T) throws -> T {
        var result: T?
        do {
            try checkUsable()
            try db.inSavepoint {
                result = try body()
                return rollback ? .rollback : .commit
            }
        } catch let error as DatabaseError {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
        return result!
    }

    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
    }

    /// GRDB's arguments for `arguments`. Handed over as optional existentials on purpose: GRDB's
    /// initialiser for a sequence of concrete values maps it through a key path, and building the
    /// arguments that way showed in a move script's profile (docs/benchmarks.md).
    static func bind(_ arguments: StoreArguments) -> StatementArguments {
        StatementArguments(arguments.map { argument -> (any DatabaseValueConvertible)? in
            switch argument.storeValue {
            case .null: nil
            case .integer(let v): v
            case .real(let v): v
            case .text(let v): v
            case .blob(let v): v
            }
        })
    }
}
