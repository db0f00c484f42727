import Foundation

/// The SQL access every store operation is written against, once, for both engines: a
/// connection inside a transaction the engine opened (``FormStore/read(_:)``,
/// ``FormStore/write(_:)``). Every statement is a ``StoreSQL`` that carries its arguments (the
/// `literal:` functions); no function here takes SQL as a `String`. Statements are written in
/// the subset of SQL both SQLite and PostgreSQL spell the same way, including
/// `INSERT ... ON CONFLICT ... DO UPDATE` and `RETURNING`; what is spelled differently comes
/// from ``dialect``.
///
/// Errors are already ``StoreError``s: a unique violation is `.conflict`, a lock wait past the
/// busy timeout `.busy`; ``StoreError/isRetryable`` says whether the engine may run the whole
/// transaction again (PostgreSQL's serialization failures).
protocol StoreDatabase: AnyObject {
    var dialect: StoreDialect { get }

    /// Runs a statement that returns no rows; returns how many rows it changed. Its
    /// placeholders are spelled for this engine as it is written, and the text is sent as it
    /// comes out (no search for `?` in it); so for the two below.
    @discardableResult
    func execute(literal sql: StoreSQL) throws -> Int

    /// Runs a query and calls `body` for each row as it arrives, without holding them all: a
    /// listing of a million forms stays small. `body` may run other statements (nested reads).
    func forEachRow(literal sql: StoreSQL, _ body: (StoreRow) throws -> Void) throws

    /// Runs a query and returns all its rows (for results known to be small).
    func rows(literal sql: StoreSQL) throws -> [StoreRow]

    /// Runs `statements` in order and returns each one's rows (empty for commands); the first
    /// failing statement throws, and those after it are not run. PostgreSQL sends them in one
    /// round trip (libpq's pipeline mode); SQLite runs them one by one. For the statements of a
    /// change that do not need each other's results.
    @discardableResult
    func batch(_ statements: [StoreStatement]) throws -> [[StoreRow]]

    /// Statements whose results the change does not need (its last writes): PostgreSQL sends
    /// them with the transaction's next statement, at the latest its COMMIT (one round trip for
    /// both); SQLite runs them now. One that fails fails the statement that carries them, and
    /// so the change: a COMMIT that carried it is not run, and the transaction is rolled back.
    func sendLater(_ statements: [StoreStatement]) throws

    /// A query whose rows are wanted later in this transaction: PostgreSQL sends it in the same
    /// round trip as the next statement; SQLite runs it when the rows are asked for. So the
    /// query must not read what the transaction writes in between (a policy read ahead of a
    /// move's form read).
    func readAhead(_ statement: StoreStatement) -> StoreRowsAhead

    /// A query run just before this transaction, outside it, as its first statement: PostgreSQL
    /// sends it in the round trip of the transaction's `BEGIN`, ahead of it, in a READ COMMITTED
    /// READ ONLY transaction of its own, so what it reads takes no part in the serializable
    /// transaction's conflicts (no predicate locks: other consoles writing near those rows, in the
    /// same index pages, cannot make this one lose a race over them). Its rows are what was
    /// committed a moment before the transaction's snapshot: hints for the transaction to check
    /// (a row's version), or what a unique index guards anyway. Later in a transaction (a
    /// savepoint of one already open), and on SQLite, it is ``readAhead(_:)``.
    func readBeforeBegin(_ statement: StoreStatement) -> StoreRowsAhead

    /// Runs `body` in a savepoint: released when `body` returns (rolled back instead when
    /// `rollback` is true), rolled back when it throws.
    func inSavepoint<T>(rollback: Bool, _ body: () throws -> T) throws -> T

    /// A reader of the blob in `column` of row `id` of `table` that reads pieces without the
    /// rest of the value (a media file sent piece by piece), valid inside this transaction.
    func blobReader(table: String, column: String, id: Int64) throws -> any BlobReader

    /// Called before the first change of a session transaction (`--atomic`, `--dry-run`), which
    /// begins as a read transaction: SQLite takes its one write lock now, so a session that only
    /// reads (a technician's) never keeps another console from writing. A no-op elsewhere.
    func startWriting() throws

    /// Called between the commands of a session transaction: one that has only read gives up
    /// its read snapshot, so the next command reads the store as it is then. On SQLite a
    /// snapshot held while the session waits for its next line would stop every checkpoint,
    /// and the `-wal` file would grow with every other console's change for as long as it
    /// waits. A session that has written keeps its transaction. A no-op elsewhere.
    func endReadSnapshot() throws
}

extension StoreDatabase {
    func startWriting() throws {}
    func endReadSnapshot() throws {}
}

/// One statement with its arguments, for ``StoreDatabase/batch(_:)`` and
/// ``StoreDatabase/readAhead(_:)``.
struct StoreStatement: Sendable {
    let sql: StoreSQL

    init(literal sql: StoreSQL) { self.sql = sql }
}

extension [StoreRow] {
    /// The id an `INSERT ... RETURNING id` of a ``StoreDatabase/batch(_:)`` returned.
    func insertedId() throws -> Int64 {
        guard let id = first.flatMap({ Int64.fromStoreValue($0.values[0]) }) else {
            throw StoreError(.database, "An insert returned no id.")
        }
        return id
    }
}

/// The rows of a query read ahead (``StoreDatabase/readAhead(_:)``).
final class StoreRowsAhead {
    private let fetch: () throws -> [StoreRow]
    init(_ fetch: @escaping () throws -> [StoreRow]) { self.fetch = fetch }
    func rows() throws -> [StoreRow] { try fetch() }
}

/// Pieces of one blob (``StoreDatabase/blobReader(table:column:id:)``); closed when released.
protocol BlobReader: AnyObject {
    /// Up to `count` bytes from `offset`; empty past the end.
    func piece(offset: Int, count: Int) throws -> [UInt8]
}

/// The slice computed by the server: PostgreSQL's `substr` on `bytea` fetches only the piece's
/// chunks of a value stored uncompressed (JPEGs and videos do not compress).
final class SQLBlobReader: BlobReader {
    let db: any StoreDatabase
    let table: String, column: String, id: Int64
    init(db: any StoreDatabase, table: String, column: String, id: Int64) {
        self.db = db
        self.table = table
        self.column = column
        self.id = id
    }

    func piece(offset: Int, count: Int) throws -> [UInt8] {
        let data = try db.value(Data.self, literal: """
            SELECT substr(\(identifier: column), CAST(\(offset + 1) AS integer), CAST(\(count) AS integer)) \
            FROM \(identifier: table) WHERE id = \(id)
            """)
        return data.map { [UInt8]($0) } ?? []
    }
}

extension StoreDatabase {
    func batch(_ statements: [StoreStatement]) throws -> [[StoreRow]] {
        try statements.map(rows)
    }

    /// ``batch(_:)`` in pieces of at most `size` statements, each one round trip on PostgreSQL:
    /// for a change over many forms (an expiry run, a form's media), so what one round trip
    /// carries, and the answers waiting for it, stay bounded whatever the count.
    @discardableResult
    func batch(_ statements: [StoreStatement], atMost size: Int) throws -> [[StoreRow]] {
        guard statements.count > size else { return try batch(statements) }
        var results: [[StoreRow]] = []
        results.reserveCapacity(statements.count)
        var start = 0
        while start < statements.count {
            let end = min(start + size, statements.count)
            results += try batch(Array(statements[start..<end]))
            start = end
        }
        return results
    }

    func readAhead(_ statement: StoreStatement) -> StoreRowsAhead {
        StoreRowsAhead { try self.rows(statement) }
    }

    func readBeforeBegin(_ statement: StoreStatement) -> StoreRowsAhead { readAhead(statement) }

    func sendLater(_ statements: [StoreStatement]) throws {
        for statement in statements { try execute(statement) }
    }

    /// ``sendLater(_:)`` of the last at most `size` statements; those before them go in
    /// batches of `size` (``batch(_:atMost:)``), so what one round trip carries stays bounded.
    func sendLater(_ statements: [StoreStatement], atMost size: Int) throws {
        let head = statements.isEmpty ? 0 : (statements.count - 1) / size * size
        if head > 0 { try batch(Array(statements[..<head]), atMost: size) }
        try sendLater(Array(statements[head...]))
    }

    /// A statement built for a batch (``StoreStatement``), run on its own.
    @discardableResult
    func execute(_ statement: StoreStatement) throws -> Int { try execute(literal: statement.sql) }

    func rows(_ statement: StoreStatement) throws -> [StoreRow] { try rows(literal: statement.sql) }

    func blobReader(table: String, column: String, id: Int64) throws -> any BlobReader {
        SQLBlobReader(db: self, table: table, column: column, id: id)
    }

    /// After rows were inserted with their ids given (a store copy): the next id the table hands
    /// out follows the largest. SQLite's AUTOINCREMENT does this by itself; a PostgreSQL identity
    /// column's sequence must be moved.
    func continueIds(after table: String) throws {
        guard dialect.engine == .postgres else { return }
        try execute(literal: """
            SELECT setval(pg_get_serial_sequence(\(table), 'id'), COALESCE((SELECT MAX(id) FROM \(identifier: table)), 0) + 1, false)
            """)
    }
}

/// What the two engines spell differently, for the few statements that need it.
struct StoreDialect: Sendable {
    enum Engine: String, Sendable { case sqlite, postgres }
    let engine: Engine

    static let sqlite = StoreDialect(engine: .sqlite)
    static let postgres = StoreDialect(engine: .postgres)

    /// A query for the column names of `table`, in their order.
    func columnNames(of table: String) -> StoreSQL {
        switch engine {
        case .sqlite: "SELECT name FROM pragma_table_info(\(table)) ORDER BY cid"
        case .postgres: """
            SELECT column_name::text FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
            """
        }
    }

    /// The text of field `key` of the JSON object held (as text) in `column`; the key is an argument.
    func jsonText(_ column: String, _ key: String) -> StoreSQL {
        switch engine {
        case .sqlite: "json_extract(\(identifier: column), \("$." + key))"
        case .postgres: "(\(identifier: column)::jsonb ->> \(key))"
        }
    }
}
