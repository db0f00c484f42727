/// The column names of one statement's result, shared by all its rows.
final class StoreColumns: Sendable {
    let names: [String]
    /// Name to position, for results wider than `linearSearchLimit` columns; narrower results
    /// are searched in order. Most statements return one row (a form, an id), and hashing every
    /// name of each showed in a move script's profile (docs/benchmarks.md).
    private let index: [String: Int]?
    private static let linearSearchLimit = 24

    init(_ names: [String]) {
        self.names = names
        if names.count > Self.linearSearchLimit {
            var index: [String: Int] = [:]
            for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
            self.index = index
        } else {
            self.index = nil
        }
    }

    /// The position of the first column named `name`.
    func position(of name: String) -> Int? {
        if let index { return index[name] }
        return names.firstIndex(of: name)
    }
}

/// One result row of either engine, read by column name or position:
/// `let id: Int64 = row["id"]`, `row["trashed_at"] as Double?`.
struct StoreRow: Sendable {
    let columns: StoreColumns
    let values: [StoreValue]

    subscript<T: StoreValueConvertible>(_ name: String) -> T {
        guard let i = columns.position(of: name) else {
            fatalError("no column '\(name)' in the result (columns: \(columns.names.joined(separator: ", ")))")
        }
        return self[i, name]
    }

    subscript<T: StoreValueConvertible>(_ i: Int) -> T { self[i, columns.names[i]] }

    private subscript<T: StoreValueConvertible>(_ i: Int, _ name: String) -> T {
        guard let value = T.fromStoreValue(values[i]) else {
            fatalError("column '\(name)' holds \(values[i]), which does not read as \(T.self)")
        }
        return value
    }

    /// Whether the column holds NULL.
    func isNull(_ name: String) -> Bool {
        guard let i = columns.position(of: name) else { return true }
        return values[i] == .null
    }
}
