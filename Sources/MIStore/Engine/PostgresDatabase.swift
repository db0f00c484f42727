import MIPostgres
import CPostgres
import Foundation

/// ``StoreDatabase`` on a libpq connection: the PostgreSQL engine's half of every operation.
///
/// - A ``StoreSQL`` comes with its placeholders spelled `$1`, `$2` as it was written, and is
///   sent as it is, prepared once per connection (``PostgresConnection/executePrepared(_:_:)``).
/// - Result values arrive in libpq's text format and are typed by their column's OID.
/// - ``forEachRow(literal:_:)`` reads through a server-side cursor, 500 rows at first and more per
///   `FETCH` while they stay small, so a listing of a million forms does not sit in memory and
///   `body` may run statements of its own; its `DECLARE` goes with the first `FETCH`, and each
///   next `FETCH` is sent before the rows of the one before are handed out (at most two
///   batches in memory).
/// - ``readAhead(_:)`` queues a query to go with the next statement (one round trip for both);
///   ``readBeforeBegin(_:)`` one to go ahead of a write's `BEGIN`, in a transaction of its own;
///   ``sendLater(_:)`` queues writes whose results are not needed, at the latest for the COMMIT.
/// - ``PostgresError``s become ``StoreError``s (``StoreError/mapping(_:target:)``).
final class PostgresDatabase: StoreDatabase {
    let connection: PostgresConnection
    var dialect: StoreDialect { .postgres }
    private var savepointDepth = 0
    private var cursorCount = 0
    /// Rows ``forEachRow(literal:_:)`` has handed to its callers since the engine last set it to 0:
    /// a read that printed rows cannot be run again after a lost connection.
    var rowsHandedOut = 0

    init(_ connection: PostgresConnection) { self.connection = connection }

    // A StoreSQL is rendered with `$N` already: its text goes to the server untouched.
    func execute(literal sql: StoreSQL) throws -> Int {
        let (text, arguments) = sql.rendered(for: dialect)
        try Self.checkText(arguments, text)
        return try mapped { try connection.executePrepared(text, Self.bind(arguments)).affectedRows }
    }

    func rows(literal sql: StoreSQL) throws -> [StoreRow] {
        let (text, arguments) = sql.rendered(for: dialect)
        try Self.checkText(arguments, text)
        return try mapped { Self.rows(of: try connection.executePrepared(text, Self.bind(arguments))) }
    }

    func forEachRow(literal sql: StoreSQL, _ body: (StoreRow) throws -> Void) throws {
        let (text, arguments) = sql.rendered(for: dialect)
        try Self.checkText(arguments, text)
        try forEachRow(spelled: text, arguments, body)
    }

    func batch(_ statements: [StoreStatement]) throws -> [[StoreRow]] {
        // Every statement is checked before any is sent: a refused one stops the whole batch.
        let spelled = try statements.map(spelledChecked)
        return try mapped { try connection.pipeline(spelled).map(Self.rows(of:)) }
    }

    func readAhead(_ statement: StoreStatement) -> StoreRowsAhead {
        queued(statement) { connection.sendWithNext($0) }
    }

    /// The open write's `BEGIN` while it waits to be sent, and how a transaction run before it
    /// begins (``readBeforeBegin(_:)``): set by the engine with each `BEGIN`.
    var waitingBegin: (begin: PostgresConnection.Ahead, preamble: [String])?

    func readBeforeBegin(_ statement: StoreStatement) -> StoreRowsAhead {
        queued(statement) { spelled in
            let around = (waitingBegin?.preamble ?? []).map { PostgresConnection.PipelinedStatement($0, named: false) }
            // Sent already (a savepoint of a session's transaction): read in the transaction.
            guard let begin = waitingBegin?.begin,
                  let aheads = connection.sendWithNext(around + [spelled, .init("COMMIT", named: false)], before: begin) else {
                return connection.sendWithNext(spelled)
            }
            return aheads[around.count]
        }
    }

    /// `statement`, spelled and checked, queued by `send` (a refused one is not queued: its
    /// rows throw why); its rows when they are read.
    private func queued(_ statement: StoreStatement,
                        _ send: (PostgresConnection.PipelinedStatement) -> PostgresConnection.Ahead) -> StoreRowsAhead {
        let spelled: PostgresConnection.PipelinedStatement
        do { spelled = try spelledChecked(statement) } catch { return StoreRowsAhead { throw error } }
        let ahead = send(spelled)
        return StoreRowsAhead { [self] in try mapped { Self.rows(of: try ahead.result()) } }
    }

    func sendLater(_ statements: [StoreStatement]) throws {
        // Every statement is checked before any is queued: a refused one queues none.
        for statement in try statements.map(spelledChecked) { connection.sendWithNext(statement) }
    }

    /// `statement` as the server takes it, placeholders `$N`, after the text check.
    private func spelledChecked(_ statement: StoreStatement) throws -> PostgresConnection.PipelinedStatement {
        let (sql, arguments) = statement.sql.rendered(for: dialect)
        try Self.checkText(arguments, sql)
        return .init(sql, Self.bind(arguments))
    }

    /// ``forEachRow(literal:_:)`` of rendered text, placeholders `$N`.
    private func forEachRow(spelled sql: String, _ arguments: StoreArguments, _ body: (StoreRow) throws -> Void) throws {
        cursorCount += 1
        let cursor = "miadmin_cursor_\(cursorCount)"
        // The DECLARE goes with the first FETCH: one round trip.
        connection.sendWithNext(.init("DECLARE \(cursor) NO SCROLL CURSOR FOR " + sql, Self.bind(arguments),
                                      named: false))
        var count = Self.firstFetch
        var batch = try mapped { try connection.execute("FETCH \(count) FROM \(cursor)") }
        while true {
            // The next FETCH goes before this batch's rows are handed out, so the server reads
            // those rows while `body` works (a statement `body` runs waits for that answer first).
            // A short batch ends the cursor: no empty FETCH to find it out.
            var next: PostgresConnection.Ahead?
            if batch.rowCount == count {
                let size = batch.memorySize
                if size < Self.fetchBytes / 2 { count = min(count * 2, Self.maxFetch) }
                else if size > Self.fetchBytes { count = max(count / 2, Self.firstFetch) }
                next = connection.sendNow(.init("FETCH \(count) FROM \(cursor)", named: false))
            }
            let reader = RowReader(batch)
            for index in 0..<batch.rowCount {
                rowsHandedOut += 1
                try body(reader.row(index))
            }
            guard let next else { break }
            batch = try mapped { try next.result() }
        }
        try mapped { try connection.execute("CLOSE \(cursor)") }
    }

    /// A listing's first FETCH: its first rows come at once (a foreman at the prompt sees
    /// them without waiting for the rest). Each next FETCH asks for twice as many while a batch
    /// stays under half of ``fetchBytes``, up to ``maxFetch`` (half as many above it), so
    /// 100,000 forms come in 16 FETCHes instead of 201 (each one a round trip and a hop through
    /// a pooler too), and a batch of large rows never holds much more than ``fetchBytes``.
    static let firstFetch = 500
    static let maxFetch = 8_000
    static let fetchBytes = 4 << 20

    func inSavepoint<T>(rollback: Bool, _ body: () throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "miadmin_sp_\(savepointDepth)"
        try mapped { try connection.execute("SAVEPOINT \(name)") }
        let result: T
        do {
            result = try body()
            try mapped {
                if rollback { try connection.execute("ROLLBACK TO SAVEPOINT \(name)") }
                try connection.execute("RELEASE SAVEPOINT \(name)")
            }
        } catch {
            // Back to the savepoint: the transaction stays usable for the commands after this one.
            // `body` failed, or a statement it left to go with the release (``sendLater(_:)``)
            // failed and the release with it. What `body` queued and did not send yet
            // (``sendLater(_:)``, ``readAhead(_:)``) is dropped unsent, not sent only to be rolled
            // back (everything queued before went with the SAVEPOINT).
            connection.dropWaiting()
            _ = try? connection.execute("ROLLBACK TO SAVEPOINT \(name)")
            _ = try? connection.execute("RELEASE SAVEPOINT \(name)")
            throw error
        }
        return result
    }

    @discardableResult
    func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PostgresError { throw StoreError.mapping(error) }
    }

    // MARK: - Values

    /// Refuses text the server cannot keep (``PostgresTextCheck``) before anything is sent.
    static func checkText(_ arguments: StoreArguments, _ sql: String) throws {
        if let refusal = PostgresTextCheck.refusal(arguments, sql: sql) { throw refusal }
    }

    static func bind(_ arguments: StoreArguments) -> [PostgresValue?] {
        arguments.map { argument -> PostgresValue? in
            switch argument.storeValue {
            case .null: nil
            case .integer(let v): .int(v)
            case .real(let v): .double(v)
            case .text(let v): .text(v)
            case .blob(let v): .bytes([UInt8](v))
            }
        }
    }

    static func rows(of result: PostgresResult) -> [StoreRow] {
        let reader = RowReader(result)
        return (0..<result.rowCount).map(reader.row)
    }

    /// A result's rows one at a time, its column names and types read once.
    private struct RowReader {
        let result: PostgresResult
        let columns: StoreColumns
        let types: [Oid]

        init(_ result: PostgresResult) {
            self.result = result
            columns = StoreColumns((0..<result.columnCount).map { result.columnName($0) })
            types = (0..<result.columnCount).map { result.columnType($0) }
        }

        func row(_ row: Int) -> StoreRow {
            StoreRow(columns: columns, values: types.indices.map { PostgresDatabase.value(result, row, $0, type: types[$0]) })
        }
    }

    fileprivate static func value(_ result: PostgresResult, _ row: Int, _ column: Int, type: Oid) -> StoreValue {
        if type == 17 { return result.bytes(row, column).map { .blob(Data($0)) } ?? .null }  // bytea
        // Numbers in their plain spelling are read from libpq's bytes; the rest becomes text first.
        return result.withText(row, column) { bytes -> StoreValue in
            switch type {
            case 20, 21, 23, 26: if let number = PostgresNumberText.int64(bytes) { return .integer(number) }
            case 700, 701: if let number = PostgresNumberText.double(bytes) { return .real(number) }
            default: break
            }
            return value(String(decoding: bytes, as: UTF8.self), type: type)
        } ?? .null
    }

    /// A value's text typed by its column's OID.
    private static func value(_ text: String, type: Oid) -> StoreValue {
        switch type {
        case 20, 21, 23, 26: return Int64(text).map(StoreValue.integer) ?? .text(text)  // int8, int2, int4, oid
        case 700, 701: return Double(text).map(StoreValue.real) ?? .text(text)           // float4, float8
        case 1700: return Int64(text).map(StoreValue.integer) ?? Double(text).map(StoreValue.real) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)                                     // bool
        default: return .text(text)
        }
    }
}
