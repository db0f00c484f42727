import Foundation

/// What the foreman's review table shows for a form (the device's ReviewAnswersTable), as data:
/// the console draws it, JSON prints it, the PDF report lays it out.
public struct FormReview: Sendable {
    public let form: FormSummary
    /// One entry per question, in order.
    public let questions: [QuestionReview]
    /// Broken app rules, of the questions and of the whole form; empty for a clean form.
    /// Never causes data loss.
    public let violations: [RuleViolation]
    /// The foremen's comments, oldest first.
    public let foremanComments: [ForemanComment]
    /// Every media file of the form, by question then number.
    public let media: [MediaFile]
}

/// One row of the review table.
public struct QuestionReview: Sendable, Hashable {
    /// 0-based, as in media names `Qid<index>(n).ext`. People read ``number``.
    public let index: Int
    /// 1-based: how `show`, `check`, import warnings and the report number questions.
    public var number: Int { index + 1 }
    public let kind: Question.Kind
    public let text: String
    public let help: String?
    /// The typed answer; nil when unanswered, or when the stored answer does not fit the
    /// question type (then ``invalidAnswer`` holds it).
    public let answer: ReviewAnswer?
    /// The stored answer as compact JSON when it does not fit the question type (`"4.5 bar"`
    /// for a numeric question); nil otherwise. Kept so nothing the device sent is hidden.
    public let invalidAnswer: String?
    /// False when there is no answer (or an empty one).
    public let answered: Bool
    /// The technician's comment ("" when none).
    public let comment: String
    /// Media files for this question, in number order.
    public let media: [MediaFile]
    /// The rule violations of this question.
    public let violations: [RuleViolation]
}

extension FormStore {
    /// The review of a form: each question with its typed answer, comment, media and violations,
    /// the form's violations, and the foreman comments.
    ///
    /// With `owner`, a form of anyone else is `.notFound`, exactly as a missing one (see
    /// ``form(_:owner:)``). Throws `.invalidInput` for a form with a table declaring more than
    /// ``ReviewTable/maximumCells`` cells, before building any of it (`check` lists such forms).
    public func review(_ ref: FormReference, owner: String? = nil) throws -> FormReview {
        try Self.review(of: try self.form(ref, owner: owner))
    }

    /// The review of a loaded form (see ``review(_:)``).
    public static func review(of form: Form) throws -> FormReview {
        for (index, question) in form.document.questions.enumerated() where ReviewTable.isTooLarge(question) {
            throw StoreError(.invalidInput, "form \(form.id) \(form.owner)/\(form.name): question \(index + 1) "
                             + "'\(question.text)': " + Rules.tooLargeText(question))
        }
        let media = form.media.sorted { ($0.question, $0.number, $0.fileName) < ($1.question, $1.number, $1.fileName) }
        let violations = Rules.check(form.document, state: form.state, mediaNames: form.media.map(\.fileName))
        let questions = form.document.questions.enumerated().map { index, question in
            let typed = ReviewAnswer(question)
            var invalid: String?
            if case .malformed(let value)? = question.answer { invalid = JSONWriter.compact(value) }
            return QuestionReview(index: index, kind: question.kind, text: question.text, help: question.help,
                                  answer: typed, invalidAnswer: invalid, answered: !(question.answer?.isEmpty ?? true),
                                  comment: question.comment ?? "", media: media.filter { $0.question == index },
                                  violations: violations.filter { $0.question == index })
        }
        let summary = FormSummary(id: form.id, owner: form.owner, name: form.name, state: form.state,
                                  template: form.document.template, created: form.document.created,
                                  modified: form.document.modified, mediaCount: form.media.count, version: form.version)
        return FormReview(form: summary, questions: questions, violations: violations,
                          foremanComments: form.foremanComments, media: media)
    }
}
