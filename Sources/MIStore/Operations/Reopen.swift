import Foundation

/// What ``FormStore/reopen(_:reason:actor:)`` did.
public struct ReopenResult: Sendable, Hashable {
    public let formId: Int64
    public let owner: String
    public let name: String
    public let version: Int
    /// The notice (carrying the reason) left for the technician.
    public let noticeId: Int64
    /// When a submitted form had already been delivered to the office (the latest time): the
    /// office keeps its copy; reopening does not recall it.
    public let sentAt: Date?
    /// Deliveries of the form still queued, now held: the office never gets the version taken back.
    public let withdrawnDeliveries: Int
}

extension Notice {
    /// Left for the technician by ``FormStore/reopen(_:reason:actor:)``.
    public static let sourceReopen = "reopen"
}

extension Notices {
    static func reopened(formName: String, by actor: String, role: String, reason: String) -> String {
        "Form '\(formName)' was sent back to you by \(role) \(actor)" + because(reason)
    }
}

extension FormStore {
    /// Sends a completed form back to its technician as incomplete, with the reason in a notice
    /// (and in the audit row's note). Expiry counts from now for it. Version + 1; audited
    /// (`reopen`, the state before in `before`). With `allowSubmitted` a submitted form is taken
    /// back the same way (the caller decides who may: a foreman).
    ///
    /// - Throws: `.notFound`; `.invalidState` unless the form is completed (or submitted and
    ///   `allowSubmitted`): an incomplete form is the technician's already; `.invalidInput` for an
    ///   empty reason or actor; `.busy`.
    @discardableResult
    public func reopen(_ ref: FormReference, reason: String, actor: String, actorRole: String = "foreman",
                       allowSubmitted: Bool = false) throws -> ReopenResult {
        let actor = try Validate.name(actor, what: "actor")
        guard !reason.allSatisfy(\.isWhitespace) else {
            throw StoreError(.invalidInput, "Reopening a form needs a reason for the technician.")
        }
        let result: ReopenResult = try write { db in
            let form = try formQuery().find(ref, in: db)
            guard form.state == .completed || (form.state == .submitted && allowSubmitted) else {
                let why = form.state == .incomplete ? "it is still with the technician"
                    : "it has been submitted (uploaded) already, and only a foreman may take a submitted form back"
                // The rule as it holds for the one asking: a foreman takes submitted forms back too.
                let rule = allowSubmitted ? "Only completed and submitted forms can be reopened."
                    : "Only completed forms can be reopened by you; a foreman may reopen a submitted one."
                throw StoreError(.invalidState, "Form \(form.id) '\(form.name)' of \(form.owner) is \(form.state): "
                    + "\(why). " + rule)
            }
            let now = nowSeconds()
            // Every statement needs only the form read above, none another's result: one batch
            // (on PostgreSQL one round trip instead of five).
            let results = try db.batch([
                StoreStatement(literal: """
                    UPDATE forms SET state = 'incomplete', version = version + 1, expiry_reset_at = \(now), \(FormRecord.touching(now))
                    WHERE id = \(form.id)
                    """),
                Notices.adding(uid: form.owner, text: Notices.reopened(formName: form.name, by: actor, role: actorRole, reason: reason),
                               source: Notice.sourceReopen, formId: form.id, at: now),
                try auditing(at: now, actor: actor, command: "reopen", formId: form.id, object: form.label,
                             before: form.summaryJSON,
                             after: FormRecord.summary(owner: form.owner, name: form.name, state: .incomplete,
                                                       version: form.version + 1),
                             note: reason),
                Outbox.lastSentQuery(formId: form.id),
                Outbox.withdrawing(formId: form.id, reason: "the form was reopened by \(actor) before it was delivered; dismiss or resubmit"),
            ])
            let noticeId = try results[1].insertedId()
            let sentAt = Outbox.lastSent(results[3])
            let withdrawn = results[4].count
            return ReopenResult(formId: form.id, owner: form.owner, name: form.name, version: form.version + 1,
                                noticeId: noticeId, sentAt: sentAt, withdrawnDeliveries: withdrawn)
        }
        logger.info("form reopened", metadata: ["form": "\(result.formId)", "actor": "\(actor)"])
        return result
    }
}
