/// A broken rule of the field app ("Rules the app enforces" in the device layout spec).
///
/// Violations are reported, never repaired: a form that breaks a rule is still stored whole.
public struct RuleViolation: Sendable, Hashable, CustomStringConvertible {
    public struct Rule: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A completed form has a question with neither an answer nor a comment.
        public static let unanswered = Rule(rawValue: "unanswered")
        /// More choices than `Max-answers` allows.
        public static let tooManyAnswers = Rule(rawValue: "tooManyAnswers")
        /// A chosen index outside `options`.
        public static let optionOutOfRange = Rule(rawValue: "optionOutOfRange")
        /// A `noCells` cell of a table answer is filled.
        public static let filledNoCell = Rule(rawValue: "filledNoCell")
        /// A table answer whose rows or columns do not match the headers.
        public static let tableShape = Rule(rawValue: "tableShape")
        /// A `numeric` answer that is not a number.
        public static let notANumber = Rule(rawValue: "notANumber")
        /// Any other answer of the wrong JSON type for its question.
        public static let malformedAnswer = Rule(rawValue: "malformedAnswer")
        /// A media file for a question index the form does not have.
        public static let mediaWithoutQuestion = Rule(rawValue: "mediaWithoutQuestion")
        /// A table question declaring more than ``ReviewTable/maximumCells`` cells: stored, but
        /// `show` and `report` refuse the form.
        public static let tableTooLarge = Rule(rawValue: "tableTooLarge")
    }

    public let rule: Rule
    /// 0-based question index (as in media names `Qid<q>`), nil for the whole form.
    /// Messages name the question by its 1-based number, as people read it.
    public let question: Int?
    public let message: String

    public var description: String { message }
}

enum Rules {
    /// Every rule violation of a form in `state` with media named `mediaNames`.
    static func check(_ document: FormDocument, state: FormState, mediaNames: [String]) -> [RuleViolation] {
        var violations: [RuleViolation] = []
        for (index, question) in document.questions.enumerated() {
            func flag(_ rule: RuleViolation.Rule, _ text: String) {
                violations.append(RuleViolation(rule: rule, question: index,
                                                message: "question \(index + 1) '\(question.text)': \(text)"))
            }
            let answered = !(question.answer?.isEmpty ?? true)
            let commented = !(question.comment ?? "").allSatisfy(\.isWhitespace)
            if state != .incomplete, !answered, !commented {
                flag(.unanswered, "neither an answer nor a comment")
            }
            switch (question.kind, question.answer) {
            case (.multipleChoice, .multipleChoice(let choices)?):
                if let maximum = question.maxAnswers, maximum > 0, choices.count > maximum {
                    flag(.tooManyAnswers, "\(choices.count) answers chosen, at most \(maximum) allowed")
                }
                for choice in choices where !question.options.indices.contains(choice) {
                    flag(.optionOutOfRange, "answer index \(choice) is not one of the \(question.options.count) options")
                }
            case (.table, _) where ReviewTable.isTooLarge(question):
                flag(.tableTooLarge, tooLargeText(question))
            case (.table, .table(let cells)?):
                for cell in question.noCells where cells.indices.contains(cell.row)
                    && cells[cell.row].indices.contains(cell.column)
                    && !(cells[cell.row][cell.column] ?? "").isEmpty {
                    let row = question.rows.indices.contains(cell.row) ? " '\(question.rows[cell.row])'" : ""
                    let column = question.columns.indices.contains(cell.column) ? " '\(question.columns[cell.column])'" : ""
                    flag(.filledNoCell, "the cell in row \(cell.row + 1)\(row), column \(cell.column + 1)\(column) must stay empty")
                }
                if cells.count != question.rows.count || cells.contains(where: { $0.count != question.columns.count }) {
                    let outside = cells.enumerated().reduce(0) { sum, row in
                        sum + row.element.enumerated().filter { column, cell in
                            (row.offset >= question.rows.count || column >= question.columns.count) && !(cell ?? "").isEmpty
                        }.count
                    }
                    flag(.tableShape, "the answer does not have \(question.rows.count) rows of \(question.columns.count) cells"
                         + (outside > 0 ? " (\(outside) filled cell(s) outside them are stored but not shown)" : ""))
                }
            case (.numeric, .malformed(let value)?):
                flag(.notANumber, "the answer is \(value.typeDescription), not a number")
            case (let kind, .malformed(let value)?):
                flag(.malformedAnswer, "the answer is \(value.typeDescription), which a \(kind) question cannot hold")
            default:
                break
            }
        }
        for name in mediaNames {
            if let parsed = MediaFile.parseName(name), parsed.question >= document.questions.count {
                violations.append(RuleViolation(rule: .mediaWithoutQuestion, question: parsed.question,
                                                message: "media file \(name) is for question \(parsed.question + 1), "
                                                    + "but the form has \(document.questions.count) questions"))
            }
        }
        return violations
    }

    /// Why a table question is too large to review (after "question N 'text': ").
    static func tooLargeText(_ question: Question) -> String {
        let cells = ReviewTable.declaredCells(question).map { "\($0)" } ?? "too many"
        return "declares \(question.rows.count) rows x \(question.columns.count) columns = \(cells) cells; "
            + "miadmin reviews tables of at most \(ReviewTable.maximumCells) cells"
    }
}
