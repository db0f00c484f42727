import Foundation
import MIStore

/// A cell of command output. Commands return data; the console's formatter renders it.
public enum Value: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    /// A number as its JSON literal, shown exactly as written (`1.50`, `1e3`): a numeric answer.
    /// Only for literals that are valid JSON numbers (those read from a form.json).
    case number(String)
    /// A table answer: a grid in a table, an object in JSON, `row / column = value` pairs in CSV.
    case grid(ReviewTable)
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
        case .number(let literal): return literal
        case .grid(let table): return Value.flattened(table)
        case .bool(let b): return b ? "true" : "false"
        case .time(let date): return date.formatted(.iso8601)
        case .list(let values): return values.map(\.text).joined(separator: ", ")
        case .object(let fields): return fields.map { "\($0.key): \($0.value.text)" }.joined(separator: "; ")
        case .null: return ""
        }
    }
}

extension Value {
    /// A table answer as one line of text (CSV, docs/review.md): its filled cells as
    /// `row / column = value`, separated by "; ", row by row; empty and not-fillable cells are left out.
    static func flattened(_ table: ReviewTable) -> String {
        var parts: [String] = []
        for (row, cells) in table.cells.enumerated() {
            for (column, cell) in cells.enumerated() {
                guard let cell, !cell.isEmpty else { continue }
                parts.append("\(table.rows[row]) / \(table.columns[column]) = \(cell)")
            }
        }
        return parts.joined(separator: "; ")
    }
}

/// A column of output: `key` names it in JSON and CSV headers, `title` in tables.
public struct Column: Sendable, Equatable {
    public let key: String
    public let title: String
    /// A column people seldom need on screen (`forms`' `created`): a table's grid leaves it out
    /// unless the command runs with `--wide`, so a listing fits a terminal; CSV, JSON and
    /// expanded blocks always carry it, so scripts see every column whatever the screen.
    public let detail: Bool
    /// What a table's grid at a terminal may do with this column when the grid is wider than
    /// the screen (``Fit``); CSV, JSON, expanded blocks, `--wide` and output that is not a
    /// terminal always carry it whole.
    public let fit: Fit
    public init(_ key: String, title: String? = nil, detail: Bool = false, fit: Fit = .whole) {
        self.key = key
        self.title = title ?? key
        self.detail = detail
        self.fit = fit
    }

    /// A column's priority on a narrow screen: first the grid leaves out `leftOut` columns, then
    /// it cuts `cut` ones to fit (ending them with `…`); only when that is not enough does
    /// `expanded auto` draw blocks.
    public enum Fit: Sendable, Equatable {
        /// Always shown whole.
        case whole
        /// Free text that may be cut short with `…` (`help`'s description: the whole of it is in
        /// `help COMMAND`).
        case cut
        /// Left out when the screen is too narrow for it (`help`'s roles).
        case leftOut
    }
}
