/// A `[row, column]` cell of a table question (0-based).
public struct TableCell: Sendable, Hashable {
    public let row: Int
    public let column: Int

    public init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }
}

/// One question of a form, with its answer, decoded from `form.json` (see docs/store.md).
///
/// The typed fields are read from ``json``, the question object exactly as stored; unknown keys
/// stay in ``json`` and are written back on export. Two questions are equal when their JSON is.
public struct Question: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        case multipleChoice, trueFalse, shortAnswer, numeric, table
        public var description: String { rawValue }
    }

    public let kind: Kind
    public let text: String
    /// Help text shown by the app's info button.
    public let help: String?
    /// The technician's comment on this question.
    public let comment: String?
    /// `multipleChoice` only: the options, in order.
    public let options: [String]
    /// `multipleChoice` only: 1 = a single answer, 0 = any number (n > 1 = at most n).
    public let maxAnswers: Int?
    /// `table` only: row headers.
    public let rows: [String]
    /// `table` only: column headers.
    public let columns: [String]
    /// `table` only: cells that must stay empty.
    public let noCells: [TableCell]
    /// `nil` when not answered.
    public let answer: Answer?
    /// The question object as read from `form.json`.
    public let json: JSONObject

    /// Decodes one question object; `path` names it in errors (`questions[3]`).
    init(json value: JSONValue, path: String) throws(FormDecoding.Failure) {
        let fields = try FormDecoding(value, path: path)
        let typeName = try fields.string("type")
        guard let kind = Kind(rawValue: typeName) else {
            throw FormDecoding.Failure(keyPath: fields.keyPath("type"), reason: "unknown question type '\(typeName)' "
                + "(expected one of \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        self.kind = kind
        self.json = fields.object
        text = try fields.string("text")
        help = try fields.optionalString("help")
        comment = try fields.optionalString("comment")
        switch kind {
        case .multipleChoice:
            options = try fields.strings("options")
            let maximum = try fields.int("Max-answers")
            guard maximum >= 0 else {
                throw FormDecoding.Failure(keyPath: fields.keyPath("Max-answers"), reason: "must be 0 (any) or a positive number")
            }
            maxAnswers = maximum
            (rows, columns, noCells) = ([], [], [])
        case .table:
            rows = try fields.strings("rows")
            columns = try fields.strings("columns")
            noCells = try Self.decodeNoCells(fields)
            (options, maxAnswers) = ([], nil)
        case .trueFalse, .shortAnswer, .numeric:
            (options, maxAnswers, rows, columns, noCells) = ([], nil, [], [], [])
        }
        answer = Answer.decode(fields.object["answer"], kind: kind)
    }

    private static func decodeNoCells(_ fields: FormDecoding) throws(FormDecoding.Failure) -> [TableCell] {
        guard let value = fields.object["noCells"], value != .null else { return [] }
        let elements = try fields.array("noCells")
        var cells: [TableCell] = []
        for (index, element) in elements.enumerated() {
            guard case .array(let pair) = element, pair.count == 2,
                  let row = pair[0].intValue, let column = pair[1].intValue else {
                throw FormDecoding.Failure(keyPath: "\(fields.keyPath("noCells"))[\(index)]",
                                           reason: "expected a [row, column] pair of integers")
            }
            cells.append(TableCell(row: row, column: column))
        }
        return cells
    }

    public static func == (lhs: Question, rhs: Question) -> Bool { lhs.json == rhs.json }
}
