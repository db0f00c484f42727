import Foundation

/// Which trashed forms a purge destroys: those trashed more than ``days`` days before ``now``
/// (strictly, like expiry). Computed once per run so the preview and the run agree.
public struct PurgeCutoff: Sendable, Hashable {
    public let days: Int
    public let now: Date
    /// Whose forms this cutoff applies to (a crew's own retention-days, `policy set --team`);
    /// nil for every owner.
    public var owners: OwnerSelection? = nil
    /// Forms trashed before this instant are purged.
    public var before: Date { Expiry.cutoff(days, before: now) }
}

extension Notice {
    /// Left for the owner by ``FormStore/purge(_:actor:note:batchSize:_:progress:)``.
    public static let sourcePurge = "purge"
}

extension Notices {
    static func purged(formName: String) -> String {
        "Form '\(formName)' was deleted for good from the trash."
    }
}

extension FormStore {
    /// The cutoff of a purge of forms trashed more than `days` days ago (0: everything in the trash).
    public func purgeCutoff(days: Int) throws -> PurgeCutoff {
        guard days >= 0 else { throw StoreError(.invalidInput, "Purge takes a number of days, 0 or more (got \(days)).") }
        return PurgeCutoff(days: days, now: clock.now())
    }

    /// The cutoffs of a purge by each owner's retention-days (``OwnerPolicies/selections(by:)``),
    /// all at one "now".
    public func purgeCutoffs(_ policies: OwnerPolicies) -> [PurgeCutoff] {
        let now = clock.now()
        return policies.selections(by: \.retentionDays).map { PurgeCutoff(days: $0.days, now: now, owners: $0.owners) }
    }

    /// The trashed forms a purge over `cutoff` destroys, within the session's reach: trashed
    /// before the cutoff, of the cutoff's owners.
    private func purgeable(_ cutoff: PurgeCutoff) -> FormQuery {
        formQuery().adding("forms.trashed_at IS NOT NULL AND forms.trashed_at < \(cutoff.before.timeIntervalSince1970)")
            .adding(cutoff.owners)
    }

    /// How many trashed forms ``purge(_:actor:note:batchSize:_:progress:)`` would destroy now.
    public func countPurgeable(_ cutoff: PurgeCutoff) throws -> Int {
        let query = purgeable(cutoff)
        return try read { db in
            try db.value(Int.self, literal: "SELECT COUNT(*) FROM forms WHERE \(query.condition)") ?? 0
        }
    }

    /// Calls `body` with each trashed form a purge would destroy, oldest in the trash first — the
    /// order the purge takes them in. Changes nothing.
    public func forEachPurgeable(_ cutoff: PurgeCutoff, _ body: (TrashedForm) throws -> Void) throws {
        try forEachTrashed(purgeable(cutoff), body)
    }

    /// Destroys the forms trashed before `cutoff`, with their media and foreman comments (foreign
    /// key cascade). Each is audited (`purge`; audit rows outlive forms) and its owner gets a notice.
    /// Batches of `batchSize` forms, one IMMEDIATE transaction each, like ``expire(_:actor:note:batchSize:_:progress:)``.
    ///
    /// - Returns: how many forms were destroyed.
    @discardableResult
    public func purge(_ cutoff: PurgeCutoff, actor: String, note: String? = nil, batchSize: Int = 1_000,
                      _ body: (TrashedForm) throws -> Void = { _ in }, progress: (Int) -> Void = { _ in }) throws -> Int {
        let actor = try Validate.name(actor, what: "actor")
        guard batchSize >= 1 else { throw StoreError(.invalidInput, "The batch size must be 1 or more.") }
        var done = 0
        // A foreman's purge takes his crews' forms only (the reach, ``FormQuery``).
        let query = purgeable(cutoff)
        while true {
            // Purged rows leave the index, so each batch simply takes the oldest that remain.
            let batch: [TrashedForm] = try write { db in
                let rows = try db.rows(literal: """
                    SELECT \(SummarySQL.columns), forms.trashed_at FROM forms
                    WHERE \(query.condition) ORDER BY forms.trashed_at, forms.id LIMIT \(batchSize)
                    """)
                let now = nowSeconds()
                var purged: [TrashedForm] = []
                // Each form's delete, notice and audit row need only the rows read above: batched
                // as an expiry's are (on PostgreSQL one round trip per batch, not three per form).
                var statements: [StoreStatement] = []
                statements.reserveCapacity(3 * rows.count)
                for row in rows {
                    let form = try Self.summary(row)
                    let trashedAt = Date(timeIntervalSince1970: row["trashed_at"])
                    var before = FormRecord.summary(owner: form.owner, name: form.name, state: form.state,
                                                    version: form.version).objectValue
                    before["trashedAt"] = .string(trashedAt.iso8601)
                    before["media"] = .integer(form.mediaCount)
                    statements += [
                        StoreStatement(literal: "DELETE FROM forms WHERE id = \(form.id)"),
                        Notices.adding(uid: form.owner, text: Notices.purged(formName: form.name),
                                       source: Notice.sourcePurge, formId: form.id, at: now),
                        try auditing(at: now, actor: actor, command: "purge", formId: form.id,
                                     object: "form \(form.id) \(form.owner)/\(form.name)",
                                     before: .object(before), after: nil, note: note),
                    ]
                    purged.append(TrashedForm(form: form, trashedAt: trashedAt))
                }
                try db.batch(statements, atMost: 3 * Self.trashFormsPerBatch)
                return purged
            }
            done += batch.count
            if !batch.isEmpty { logger.info("forms purged", metadata: ["count": "\(batch.count)", "actor": "\(actor)"]) }
            progress(done)
            for form in batch { try body(form) }
            if batch.count < batchSize { break }
        }
        return done
    }
}
