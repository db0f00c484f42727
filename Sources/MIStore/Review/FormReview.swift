import Foundation
import GRDB

/// What the foreman's review table shows for a form (the device's ReviewAnswersTable).
public struct FormReview: Sendable {
    public let form: FormSummary
    /// One entry per question, in order.
    public let questions: [QuestionReview]
    /// Broken app rules; empty for a clean form. Never causes data loss.
    public let violations: [RuleViolation]
    /// The foremen's comments, oldest first.
    public let foremanComments: [ForemanComment]
}

/// One row of the review table.
public struct QuestionReview: Sendable, Hashable {
    /// 0-based, as in media names `Qid<index>(n).ext`.
    public let index: Int
    public let kind: Question.Kind
    public let text: String
    public let help: String?
    /// The answer rendered for reading: chosen options by name (comma-separated), `yes`/`no`,
    /// the text, the number as written, or for a table a multi-line grid with row and column
    /// headers and `×` in cells that must stay empty. Empty when unanswered.
    public let answer: String
    /// False when there is no answer (or an empty one).
    public let answered: Bool
    /// The technician's comment ("" when none).
    public let comment: String
    /// Media file names for this question, in number order.
    public let media: [String]
}

extension FormStore {
    /// The review of a form: each question with its rendered answer, comment and media, the rule
    /// violations, and the foreman comments.
    public func review(_ ref: FormReference, owner: String? = nil) throws -> FormReview {
        let form = try self.form(ref, owner: owner)
        let mediaNames = form.media.map(\.fileName)
        let questions = form.document.questions.enumerated().map { index, question in
            QuestionReview(index: index, kind: question.kind, text: question.text, help: question.help,
                           answer: AnswerRendering.render(question), answered: !(question.answer?.isEmpty ?? true),
                           comment: question.comment ?? "",
                           media: form.media.filter { $0.question == index }.map(\.fileName))
        }
        let summary = FormSummary(id: form.id, owner: form.owner, name: form.name, state: form.state,
                                  template: form.document.template, created: form.document.created,
                                  modified: form.document.modified, mediaCount: form.media.count, version: form.version)
        return FormReview(form: summary, questions: questions,
                          violations: Rules.check(form.document, state: form.state, mediaNames: mediaNames),
                          foremanComments: form.foremanComments)
    }
}
