import Foundation

/// What ``FormStore/submit(_:actor:note:expectedVersion:)`` did.
public struct SubmitResult: Sendable, Hashable {
    public let formId: Int64
    public let owner: String
    public let name: String
    /// The form's version afterwards.
    public let version: Int
    /// True when the form was submitted before this call: nothing changed, nothing audited.
    public let alreadySubmitted: Bool
}

extension FormStore {
    /// Marks a completed form submitted (the foreman's "Submit" on the device) and queues it for
    /// delivery to the office in the same transaction (the outbox; ``dueDeliveries(ignoringBackoff:limit:)``).
    /// Submitting an already submitted form succeeds without change (``SubmitResult/alreadySubmitted``).
    /// Rule violations do not block submission; look at ``review(_:)`` first. Audited.
    ///
    /// - Throws: `.notFound`; `.invalidState` for an incomplete form; `.conflict`; `.busy`.
    @discardableResult
    public func submit(_ ref: FormReference, actor: String, note: String? = nil,
                       expectedVersion: Int? = nil) throws -> SubmitResult {
        let actor = try Validate.name(actor, what: "actor")
        let result: SubmitResult = try write { db in
            let form = try formQuery().find(ref, in: db)
            if form.state == .submitted {
                return SubmitResult(formId: form.id, owner: form.owner, name: form.name, version: form.version,
                                    alreadySubmitted: true)
            }
            try form.check(expectedVersion: expectedVersion)
            guard form.state == .completed else {
                throw StoreError(.invalidState, "Form \(form.id) '\(form.name)' of \(form.owner) is \(form.state); "
                    + "only completed forms can be submitted.")
            }
            let now = nowSeconds()
            // The update, the delivery and the audit row need none of each other's results, and
            // the submit none of theirs: on PostgreSQL they go with the COMMIT (one round trip
            // for the four instead of four).
            try db.sendLater([
                StoreStatement(literal: """
                    UPDATE forms SET state = 'submitted', version = version + 1, \(FormRecord.touching(now)) WHERE id = \(form.id)
                    """),
                // Queued for the office in this same transaction: a rolled-back submit queues
                // nothing, a committed one cannot lose its delivery (`deliver` sends it).
                Outbox.enqueuing(formId: form.id, version: form.version + 1, owner: form.owner, name: form.name, at: now),
                try auditing(at: now, actor: actor, command: "submit", formId: form.id, object: form.label,
                             before: form.summaryJSON,
                             after: FormRecord.summary(owner: form.owner, name: form.name, state: .submitted,
                                                       version: form.version + 1),
                             note: note),
            ])
            return SubmitResult(formId: form.id, owner: form.owner, name: form.name, version: form.version + 1,
                                alreadySubmitted: false)
        }
        if !result.alreadySubmitted {
            logger.info("form submitted", metadata: ["form": "\(result.formId)", "actor": "\(actor)"])
        }
        return result
    }
}
