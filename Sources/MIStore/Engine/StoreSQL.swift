import Foundation

/// A piece of SQL that carries its own arguments: what is interpolated into it is an argument,
/// never SQL text, and each argument's placeholder is spelled by the engine that runs the
/// statement, as the statement is written (``StoreDialect/placeholder(at:)``: `?` for SQLite,
/// `$1`, `$2` for PostgreSQL). Fragments join into larger ones with their arguments in order,
/// so no statement numbers placeholders by hand and no finished text is searched for `?` again:
/// a `?` in a string literal, a comment or an operator (jsonb's `?`) stays what it is.
///
///     let cutoff: StoreSQL = "forms.created_utc < \(before)"
///     db.rows(literal: "SELECT id FROM forms WHERE \(cutoff) AND owner = \(uid)")
///
/// It is the only way SQL reaches a database: the database's functions take a `StoreSQL`
/// (labelled `literal:`, as GRDB's are), none takes a `String`, so an interpolated value can
/// only ever become an argument.
///
/// A name (a table, a column) goes in with `\(identifier:)`, which quotes it. Text taken as SQL
/// as it is needs the marker that says so, ``StoreSQL/init(unsafeRaw:)`` or `\(unsafeRaw:)`:
/// for the few pieces the store spells itself that are neither a name nor a value (a JSON
/// path in an expression the schema indexes), never for text from outside. (GRDB's `SQL`
/// literal and sql-kit's `SQLSerializer` with its `\(unsafeRaw:)` and `\(ident:)` are the models.)
struct StoreSQL: ExpressibleByStringInterpolation, Sendable {
    fileprivate enum Piece {
        case text(String)
        case argument(any StoreValueConvertible)
        /// What the two engines spell differently (``StoreDialect``): chosen as the statement is written.
        case byEngine(sqlite: StoreSQL, postgres: StoreSQL)
    }

    fileprivate private(set) var pieces: [Piece]
    /// About how many bytes the rendered text takes (its text, a few per argument), so that it
    /// is written into one buffer of that size.
    fileprivate private(set) var sizeHint: Int
    /// How many arguments it binds (the larger count where the engines' texts differ), so that
    /// they go into one array of that size.
    fileprivate private(set) var argumentHint: Int

    /// Room for an argument's placeholder in ``sizeHint`` (`?`, `$12`).
    fileprivate static let placeholderBytes = 4

    /// `text` taken as SQL as it is, no arguments: only fixed text the store spells itself,
    /// never a value or a name from outside (those are interpolated).
    init(unsafeRaw text: String) {
        pieces = text.isEmpty ? [] : [.text(text)]
        sizeHint = text.utf8.count
        argumentHint = 0
    }

    init(stringLiteral text: String) { self.init(unsafeRaw: text) }

    init(stringInterpolation: Interpolation) {
        pieces = stringInterpolation.pieces
        sizeHint = stringInterpolation.sizeHint
        argumentHint = stringInterpolation.argumentHint
    }

    /// `sqlite` where SQLite runs the statement, `postgres` where PostgreSQL does.
    init(sqlite: StoreSQL, postgres: StoreSQL) {
        pieces = [.byEngine(sqlite: sqlite, postgres: postgres)]
        sizeHint = max(sqlite.sizeHint, postgres.sizeHint)
        argumentHint = max(sqlite.argumentHint, postgres.argumentHint)
    }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []
        fileprivate var sizeHint = 0
        fileprivate var argumentHint = 0

        init(literalCapacity: Int, interpolationCount: Int) {
            // A literal piece before, between and after the values: no growing as they come.
            pieces.reserveCapacity(2 * interpolationCount + 1)
        }

        mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.text(literal)) }
            sizeHint += literal.utf8.count
        }

        /// A value: one argument.
        mutating func appendInterpolation(_ value: some StoreValueConvertible) {
            pieces.append(.argument(value))
            sizeHint += StoreSQL.placeholderBytes
            argumentHint += 1
        }

        /// An optional value: one argument, NULL when nil.
        mutating func appendInterpolation(_ value: (some StoreValueConvertible)?) {
            pieces.append(.argument(value.map { $0.storeValue } ?? StoreValue.null))
            sizeHint += StoreSQL.placeholderBytes
            argumentHint += 1
        }

        /// Another fragment, with its arguments.
        mutating func appendInterpolation(_ fragment: StoreSQL) {
            pieces += fragment.pieces
            sizeHint += fragment.sizeHint
            argumentHint += fragment.argumentHint
        }

        /// A name (a table, a column), quoted: `"name"`, a `"` in it doubled, so it is one
        /// identifier whatever it holds.
        mutating func appendInterpolation(identifier name: String) {
            appendLiteral(StoreSQL.quoted(identifier: name))
        }

        /// `text` taken as SQL as it is (``StoreSQL/init(unsafeRaw:)``): fixed text the store
        /// spells itself, never a value or a name from outside.
        mutating func appendInterpolation(unsafeRaw text: String) {
            appendLiteral(text)
        }
    }

    var isEmpty: Bool { pieces.isEmpty }

    /// `name` as one quoted SQL identifier (both engines quote with `"`).
    static func quoted(identifier name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Names as a column list: each quoted, separated by commas.
    init(identifiers names: [String]) {
        self.init(unsafeRaw: names.map(StoreSQL.quoted(identifier:)).joined(separator: ", "))
    }

    static func + (lhs: StoreSQL, rhs: StoreSQL) -> StoreSQL {
        var joined = lhs
        joined += rhs
        return joined
    }

    static func += (lhs: inout StoreSQL, rhs: StoreSQL) {
        lhs.pieces += rhs.pieces
        lhs.sizeHint += rhs.sizeHint
        lhs.argumentHint += rhs.argumentHint
    }

    /// The text and arguments for `dialect`'s engine, each placeholder spelled by the dialect
    /// for its argument's position (from 1).
    func rendered(for dialect: StoreDialect) -> (sql: String, arguments: StoreArguments) {
        // The bytes go into one buffer of about the right size and become a String once: a
        // String appended to piece by piece copies itself into ever larger buffers, a cost a
        // move pays for each of its statements (docs/benchmarks.md).
        var sql: [UInt8] = []
        sql.reserveCapacity(sizeHint)
        var arguments: StoreArguments = []
        arguments.reserveCapacity(argumentHint)
        render(for: dialect, into: &sql, &arguments)
        return (String(decoding: sql, as: UTF8.self), arguments)
    }

    private func render(for dialect: StoreDialect, into sql: inout [UInt8], _ arguments: inout StoreArguments) {
        for piece in pieces {
            switch piece {
            case .text(let text):
                sql += text.utf8
            case .argument(let value):
                arguments.append(value)
                sql += dialect.placeholder(at: arguments.count).utf8
            case .byEngine(let sqlite, let postgres):
                (dialect.engine == .sqlite ? sqlite : postgres).render(for: dialect, into: &sql, &arguments)
            }
        }
    }
}

extension Sequence<StoreSQL> {
    /// The fragments one after another, `separator` between them, their arguments in order.
    func joined(separator: StoreSQL) -> StoreSQL {
        var joined: StoreSQL = ""
        for (index, fragment) in enumerated() {
            if index > 0 { joined += separator }
            joined += fragment
        }
        return joined
    }
}

extension StoreDialect {
    /// The placeholder of the argument at `position` (from 1): SQLite binds `?` in order,
    /// PostgreSQL names each one, `$1`, `$2`.
    func placeholder(at position: Int) -> String {
        switch engine {
        case .sqlite: "?"
        case .postgres: "$\(position)"
        }
    }
}

extension StoreDatabase {
    /// The first row of `sql`, or nil.
    func row(literal sql: StoreSQL) throws -> StoreRow? { try rows(literal: sql).first }

    /// The first column of the first row of `sql`, or nil when there is no row (or it holds NULL).
    func value<T: StoreValueConvertible>(_ type: T.Type, literal sql: StoreSQL) throws -> T? {
        guard let row = try row(literal: sql) else { return nil }
        return T.fromStoreValue(row.values[0])
    }

    /// Runs an `INSERT ... RETURNING id` and returns the id.
    func insert(literal sql: StoreSQL) throws -> Int64 { try rows(literal: sql).insertedId() }

    /// The first column of every row of `sql`.
    func values<T: StoreValueConvertible>(_ type: T.Type, literal sql: StoreSQL) throws -> [T] {
        try rows(literal: sql).compactMap { T.fromStoreValue($0.values[0]) }
    }
}
