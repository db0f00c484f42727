import Foundation

/// A JSON value as read from a `form.json`, kept losslessly.
///
/// Objects keep their key order and numbers keep their literal text, so a form read from a
/// device and written back by ``FormStore/exportTree(to:)`` carries the same data, including
/// keys this version does not know about.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as its JSON literal (`4`, `4.5`, `1e3`). Compared by literal.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the JSON type, for messages ("a string", "a number", ...).
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The number as a `Double`, when this is a number.
    public var doubleValue: Double? {
        if case .number(let literal) = self { return Double(literal) }
        return nil
    }

    /// The number as an `Int`, when this is a number with an integral value in range.
    public var intValue: Int? {
        guard case .number(let literal) = self else { return nil }
        if let exact = Int(literal) { return exact }
        guard let double = Double(literal), double.rounded() == double,
              double >= -9.0e15, double <= 9.0e15 else { return nil }
        return Int(double)
    }

    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }
}

/// A JSON object whose entries keep the order they were read in.
///
/// Keys are also hashed, so looking one up, adding one and comparing objects take time in
/// proportion to the number of keys, not its square.
/// Equality ignores order: two objects are equal when they hold the same keys with equal values.
public struct JSONObject: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
    }

    public private(set) var entries: [Entry] = []
    /// The position of each key in `entries`.
    private var positions: [String: Int] = [:]

    public init() {}

    public init(_ entries: [(String, JSONValue)]) {
        for (key, value) in entries { self[key] = value }
    }

    /// Entries whose keys the caller has already checked to be distinct (the parser).
    init(uniqueEntries: [(String, JSONValue)]) {
        entries.reserveCapacity(uniqueEntries.count)
        positions.reserveCapacity(uniqueEntries.count)
        for (key, value) in uniqueEntries {
            positions[key] = entries.count
            entries.append(Entry(key: key, value: value))
        }
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    /// Reads or replaces the value of `key`; setting `nil` removes the key. A new key is appended.
    public subscript(key: String) -> JSONValue? {
        get { positions[key].map { entries[$0].value } }
        set {
            if let index = positions[key] {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                    positions[key] = nil
                    for later in index..<entries.count { positions[entries[later].key] = later }
                }
            } else if let newValue {
                positions[key] = entries.count
                entries.append(Entry(key: key, value: newValue))
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        return lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
    }
}
