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

    init(_ db: Database, busyTimeout: TimeInterval, readingSession: Bool = false) {
        self.db = db
        self.busyTimeout = busyTimeout
        self.readingSession = readingSession
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
        try mapped {
            guard db.isInsideTransaction, !hasStatementInProgress else { return }
            try db.rollback()
            try db.beginTransaction(.immediate)
        }
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

    func execute(_ sql: String, _ arguments: StoreArguments) throws -> Int {
        try mapped {
            try db.cachedStatement(sql: sql).execute(arguments: Self.bind(arguments))
            return db.changesCount
        }
    }

    func forEachRow(_ sql: String, _ arguments: StoreArguments, _ body: (StoreRow) throws -> Void) throws {
        // A statement of its own (not the cached one): `body` may run this same SQL again.
        let statement = try mapped { try db.makeStatement(sql: sql) }
        try step(statement, arguments, body)
    }

    // SQLite binds `?` in order and parses the text itself: the rendered text is the statement.
    func execute(literal sql: StoreSQL) throws -> Int {
        let (text, arguments) = sql.rendered(for: dialect)
        return try execute(text, arguments)
    }

    func forEachRow(literal sql: StoreSQL, _ body: (StoreRow) throws -> Void) throws {
        let (text, arguments) = sql.rendered(for: dialect)
        try forEachRow(text, arguments, body)
    }

    func rows(literal sql: StoreSQL) throws -> [StoreRow] {
        let (text, arguments) = sql.rendered(for: dialect)
        return try rows(text, arguments)
    }

    /// Runs `statement` and hands each result row to `body`. Each step's values come straight
    /// from SQLite (as GRDB's DatabaseValue would read them), without a GRDB row of
    /// DatabaseValues in between: listings read a million rows.
    private func step(_ statement: Statement, _ arguments: StoreArguments, _ body: (StoreRow) throws -> Void) throws {
        let columns = StoreColumns(statement.columnNames)
        let cursor = try mapped { try Row.fetchCursor(statement, arguments: Self.bind(arguments)) }
        let sqliteStatement = statement.sqliteStatement
        let count = Int32(columns.names.count)
        while try mapped({ try cursor.next() }) != nil {
            try body(StoreRow(columns: columns, values: Self.values(sqliteStatement, count: count)))
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

    func rows(_ sql: String, _ arguments: StoreArguments) throws -> [StoreRow] {
        let statement = try mapped { try db.cachedStatement(sql: sql) }
        var rows: [StoreRow] = []
        try step(statement, arguments) { rows.append($0) }
        return rows
    }

    func inSavepoint<T>(rollback: Bool, _ body: () throws -> T) throws -> T {
        var result: T?
        do {
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
