/// An answer as a review returns it: typed data, never drawn text. The console draws it (a grid
/// for a table), JSON prints its structure, the PDF report lays it out (docs/review.md).
public enum ReviewAnswer: Sendable, Hashable {
    case shortAnswer(String)
    /// The number, and its literal exactly as the device wrote it (`1.50`, `1e3`) for display.
    case numeric(value: Double, literal: String)
    case trueFalse(Bool)
    /// The chosen options by name, in the order chosen (one element when `Max-answers` is 1).
    /// An index outside the options has no name: it is left out here and reported as an
    /// ``RuleViolation/Rule/optionOutOfRange`` violation.
    case multipleChoice([String])
    case table(ReviewTable)
}

/// A table answer in the shape the question declares: `rows.count` x `columns.count` cells.
///
/// Never larger than ``maximumCells``: the review refuses a table declaring more (and `check`
/// reports it) before anything of that size is allocated.
public struct ReviewTable: Sendable, Hashable {
    /// The most cells a table question may declare (rows x columns) for miadmin to review it.
    /// A form of the field app has tables of a few dozen cells; 10,000 leaves ample room
    /// (a 100 x 100 table) while bounding the work of `show` and `report`.
    public static let maximumCells = 10_000

    public let columns: [String]
    public let rows: [String]
    /// One array per row, one cell per column; nil is an empty cell.
    public let cells: [[String?]]
    /// The cells that must stay empty (`noCells`) and lie inside the table, row by row.
    public let noCells: [TableCell]

    public init(columns: [String], rows: [String], cells: [[String?]], noCells: [TableCell]) {
        self.columns = columns
        self.rows = rows
        self.cells = cells
        self.noCells = noCells
    }

    /// Whether `[row, column]` is a `noCells` cell.
    public func isNoCell(row: Int, column: Int) -> Bool { noCells.contains(TableCell(row: row, column: column)) }

    /// The number of cells `question` declares, nil when the product overflows.
    static func declaredCells(_ question: Question) -> Int? {
        let (product, overflow) = question.rows.count.multipliedReportingOverflow(by: question.columns.count)
        return overflow ? nil : product
    }

    /// Whether a table question declares more than ``maximumCells``.
    static func isTooLarge(_ question: Question) -> Bool {
        guard question.kind == .table else { return false }
        return declaredCells(question).map { $0 > maximumCells } ?? true
    }

    /// The declared table filled from `answer` (cells outside the declared shape are not part of
    /// it; the ``RuleViolation/Rule/tableShape`` violation says so). The caller has checked the size.
    init(_ question: Question, answer: [[String?]]) {
        columns = question.columns
        rows = question.rows
        cells = question.rows.indices.map { row in
            question.columns.indices.map { column in
                row < answer.count && column < answer[row].count ? answer[row][column] : nil
            }
        }
        let rowCount = question.rows.count, columnCount = question.columns.count
        noCells = Set(question.noCells.filter { (0..<rowCount).contains($0.row) && (0..<columnCount).contains($0.column) })
            .sorted { ($0.row, $0.column) < ($1.row, $1.column) }
    }
}

extension ReviewAnswer {
    /// The typed answer of `question`; nil when unanswered or when the stored answer does not fit
    /// the question type (then a violation names it and the raw value is kept).
    /// Tables must have been checked against ``ReviewTable/maximumCells``.
    init?(_ question: Question) {
        guard let answer = question.answer else { return nil }
        switch answer {
        case .shortAnswer(let text):
            self = .shortAnswer(text)
        case .numeric(let value):
            if case .number(let literal)? = question.json["answer"] {
                self = .numeric(value: value, literal: literal)
            } else {
                self = .numeric(value: value, literal: String(value))
            }
        case .trueFalse(let flag):
            self = .trueFalse(flag)
        case .multipleChoice(let choices):
            self = .multipleChoice(choices.compactMap { question.options.indices.contains($0) ? question.options[$0] : nil })
        case .table(let cells):
            self = .table(ReviewTable(question, answer: cells))
        case .malformed:
            return nil
        }
    }
}
