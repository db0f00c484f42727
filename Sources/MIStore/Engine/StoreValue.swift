import Foundation

/// One SQL value as both engines hold it: the five SQLite storage classes, which PostgreSQL's
/// types used by the store map onto (`bigint`/`integer` → integer, `double precision` → real,
/// `text` → text, `bytea` → blob, `boolean` → integer 0/1).
public enum StoreValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A Swift type the store binds as an SQL argument and reads back from a ``StoreRow``.
///
/// Reading is lenient the way SQLite is (an integer column read as `Double`, a PostgreSQL
/// `numeric` read as `Int64`), strict about NULL: a non-optional read of NULL is a programming
/// error and traps, as in GRDB.
public protocol StoreValueConvertible: Sendable {
    var storeValue: StoreValue { get }
    /// The value, or nil when `value` cannot be read as this type.
    static func fromStoreValue(_ value: StoreValue) -> Self?
}

/// Arguments of one statement, bound in order to its `?` placeholders (`?1`, `?2` by number).
typealias StoreArguments = [any StoreValueConvertible]

extension Int64: StoreValueConvertible {
    public var storeValue: StoreValue { .integer(self) }
    public static func fromStoreValue(_ value: StoreValue) -> Int64? {
        switch value {
        case .integer(let v): v
        case .real(let v): Int64(exactly: v)
        case .text(let v): Int64(v)
        case .null, .blob: nil
        }
    }
}

extension Int: StoreValueConvertible {
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public static func fromStoreValue(_ value: StoreValue) -> Int? { Int64.fromStoreValue(value).flatMap { Int(exactly: $0) } }
}

extension Double: StoreValueConvertible {
    public var storeValue: StoreValue { .real(self) }
    public static func fromStoreValue(_ value: StoreValue) -> Double? {
        switch value {
        case .integer(let v): Double(v)
        case .real(let v): v
        case .text(let v): Double(v)
        case .null, .blob: nil
        }
    }
}

extension Bool: StoreValueConvertible {
    public var storeValue: StoreValue { .integer(self ? 1 : 0) }
    public static func fromStoreValue(_ value: StoreValue) -> Bool? {
        switch value {
        case .integer(let v): v != 0
        case .real(let v): v != 0
        case .text(let v): v == "t" || v == "true" ? true : (v == "f" || v == "false" ? false : nil)
        case .null, .blob: nil
        }
    }
}

extension String: StoreValueConvertible {
    public var storeValue: StoreValue { .text(self) }
    public static func fromStoreValue(_ value: StoreValue) -> String? {
        switch value {
        case .text(let v): v
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .blob(let v): String(data: v, encoding: .utf8)
        case .null: nil
        }
    }
}

extension Data: StoreValueConvertible {
    public var storeValue: StoreValue { .blob(self) }
    public static func fromStoreValue(_ value: StoreValue) -> Data? {
        switch value {
        case .blob(let v): v
        case .text(let v): Data(v.utf8)
        case .null, .integer, .real: nil
        }
    }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    public var storeValue: StoreValue { self?.storeValue ?? .null }
    /// NULL reads as `.some(nil)`: a successful read of "no value".
    public static func fromStoreValue(_ value: StoreValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromStoreValue(value).map { .some($0) }
    }
}

/// A value read from one engine binds unchanged on the other (`store copy`).
extension StoreValue: StoreValueConvertible {
    public var storeValue: StoreValue { self }
    public static func fromStoreValue(_ value: StoreValue) -> StoreValue? { value }
}
