/// A technician's answer, typed by the question's type.
///
/// An answer whose JSON does not fit the question type (a string for a `numeric` question,
/// a number in a table cell, ...) is kept verbatim as ``malformed(_:)`` and flagged by the
/// review rules: the store never drops data it cannot check.
public enum Answer: Sendable, Equatable {
    /// Indexes into the question's options.
    case multipleChoice([Int])
    case trueFalse(Bool)
    case shortAnswer(String)
    case numeric(Double)
    /// One array per row, one cell per column; `nil` is an empty cell.
    case table([[String?]])
    /// Present but of the wrong shape for the question type.
    case malformed(JSONValue)

    /// True when the answer says nothing: no option chosen, blank text, or an all-empty table.
    public var isEmpty: Bool {
        switch self {
        case .multipleChoice(let choices): choices.isEmpty
        case .trueFalse, .numeric, .malformed: false
        case .shortAnswer(let text): text.allSatisfy(\.isWhitespace)
        case .table(let rows): rows.allSatisfy { $0.allSatisfy { ($0 ?? "").allSatisfy(\.isWhitespace) } }
        }
    }

    /// Reads the JSON `answer` of a question of type `kind`; `nil` when absent or null.
    static func decode(_ value: JSONValue?, kind: Question.Kind) -> Answer? {
        guard let value, value != .null else { return nil }
        switch (kind, value) {
        case (.trueFalse, .bool(let flag)):
            return .trueFalse(flag)
        case (.shortAnswer, .string(let text)):
            return .shortAnswer(text)
        case (.numeric, .number):
            return value.doubleValue.map(Answer.numeric) ?? .malformed(value)
        case (.multipleChoice, .array(let elements)):
            let indexes = elements.compactMap(\.intValue)
            return indexes.count == elements.count ? .multipleChoice(indexes) : .malformed(value)
        case (.table, .array(let rows)):
            var table: [[String?]] = []
            for row in rows {
                guard case .array(let cells) = row else { return .malformed(value) }
                var decoded: [String?] = []
                for cell in cells {
                    switch cell {
                    case .null: decoded.append(nil)
                    case .string(let text): decoded.append(text)
                    default: return .malformed(value)
                    }
                }
                table.append(decoded)
            }
            return .table(table)
        default:
            return .malformed(value)
        }
    }
}
