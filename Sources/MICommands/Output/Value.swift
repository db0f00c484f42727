import Foundation

/// A cell of command output. Commands return data; the console's formatter renders it.
public enum Value: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    /// An instant: tables show it in the site's zone (`display.timeZone`) with the offset, JSON
    /// and CSV as ISO 8601 with the offset.
    case time(Date)
    case list([Value])
    /// A nested object (JSON object; in a table, a sub-table or `key: value` lines).
    case object([Field])
    case null

    /// A key and its value inside an `.object`.
    public struct Field: Sendable, Equatable {
        public let key: String
        public let value: Value
        public init(_ key: String, _ value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// `.string`, or `.null` for nil.
    public static func optional(_ text: String?) -> Value { text.map(Value.string) ?? .null }

    /// Plain text for table and CSV cells (lists joined with ", ").
    public var text: String {
        switch self {
        case .string(let s): return s
        case .int(let i): return String(i)
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b): return b ? "true" : "false"
        case .time(let date): return date.formatted(.iso8601)
        case .list(let values): return values.map(\.text).joined(separator: ", ")
        case .object(let fields): return fields.map { "\($0.key): \($0.value.text)" }.joined(separator: "; ")
        case .null: return ""
        }
    }
}

/// A column of output: `key` names it in JSON and CSV headers, `title` in tables.
public struct Column: Sendable, Equatable {
    public let key: String
    public let title: String
    public init(_ key: String, title: String? = nil) {
        self.key = key
        self.title = title ?? key
    }
}
