import Foundation

/// Which incomplete forms an expiry run takes: those created more than ``days`` days before
/// ``now`` (strictly: a form created exactly `days` days ago is not older than `days` days and
/// stays). `created` is compared as a UTC instant, whatever zone it was written in.
///
/// Computed once per run, so the preview (`--dry-run`, the confirmation list) and the run itself
/// select the same forms.
public struct ExpiryCutoff: Sendable, Hashable {
    public let days: Int
    /// The run's "now".
    public let now: Date
    /// Whose forms this cutoff applies to (a crew's own expiry days, `policy set --team`); nil
    /// for every owner.
    public var owners: OwnerSelection? = nil

    /// The cutoff over `days` days for the forms of `owners` only, at the same "now".
    public func with(days: Int, owners: OwnerSelection) -> ExpiryCutoff {
        ExpiryCutoff(days: days, now: now, owners: owners)
    }
    /// Forms created before this instant expire.
    public var before: Date { Expiry.cutoff(days, before: now) }
}

/// One form that an expiry run moved to the trash.
public struct ExpiredForm: Sendable, Hashable {
    /// The form as it was before it was trashed (version before the change).
    public let form: FormSummary
    public let trashedAt: Date
    /// The notice left for the owner.
    public let noticeId: Int64
}

extension Notice {
    /// Left for the owner by ``FormStore/expire(_:actor:note:batchSize:_:progress:)``.
    public static let sourceExpire = "expire"
}

extension Notices {
    static func expired(formName: String, days: Int) -> String {
        "Form '\(formName)' expired after \(days) day\(days == 1 ? "" : "s") and was moved to the trash."
    }
}

extension FormStore {
    /// The cutoff of an expiry run over forms older than `days` days, at the store clock's now.
    public func expiryCutoff(days: Int) throws -> ExpiryCutoff {
        guard ExpiryPolicy.dayRange.contains(days) else {
            throw StoreError(.invalidInput, "Expiry takes a number of days between 1 and 3650 (got \(days)).")
        }
        return ExpiryCutoff(days: days, now: clock.now())
    }

    /// The cutoffs of an expiry run by each owner's policy (``OwnerPolicies/selections(by:)``):
    /// the site's expiry-days for the owners without a crew value of their own, one cutoff per
    /// other number of days for its owners, all at one "now".
    public func expiryCutoffs(_ policies: OwnerPolicies) -> [ExpiryCutoff] {
        let now = clock.now()
        return policies.selections(by: \.expiryDays).map { ExpiryCutoff(days: $0.days, now: now, owners: $0.owners) }
    }

    /// The forms an expiry run over `cutoff` takes, within the session's reach: live incomplete
    /// forms past the cutoff, by `forms(state, created_utc)`, of the cutoff's owners. A form
    /// moved (policy `expiryFrom: assigned`), restored or reopened counts from then
    /// (`expiry_reset_at`) instead of from `created`.
    private func expirable(_ cutoff: ExpiryCutoff) -> FormQuery {
        let before = cutoff.before.timeIntervalSince1970
        return formQuery().adding("""
            forms.state = 'incomplete' AND forms.trashed_at IS NULL AND forms.created_utc < \(before)
            AND (forms.expiry_reset_at IS NULL OR forms.expiry_reset_at < \(before))
            """).adding(cutoff.owners)
    }

    /// How many forms ``expire(_:actor:note:batchSize:_:progress:)`` would take now.
    public func countExpirable(_ cutoff: ExpiryCutoff) throws -> Int {
        let query = expirable(cutoff)
        return try read { db in
            try db.value(Int.self, literal: "SELECT COUNT(*) FROM forms WHERE \(query.condition)") ?? 0
        }
    }

    /// Calls `body` with each form an expiry run would take, oldest `created` first (then id) —
    /// the order the run takes them in. Streams from a cursor; changes nothing.
    public func forEachExpirable(_ cutoff: ExpiryCutoff, _ body: (FormSummary) throws -> Void) throws {
        let query = expirable(cutoff)
        try read { db in
            try db.forEachRow(literal: """
                SELECT \(SummarySQL.columns) FROM forms WHERE \(query.condition)
                ORDER BY forms.created_utc, forms.id
                """) { row in try body(try Self.summary(row)) }
        }
    }

    /// How many forms' statements a run into or out of the trash (expire, purge) sends in one
    /// batch (``StoreDatabase/batch(_:atMost:)``): 750 statements, three per form, a few hundred
    /// kilobytes each way, one round trip on PostgreSQL.
    static let trashFormsPerBatch = 250

    /// Moves every incomplete form past `cutoff` to the trash (the device's "delete forms older
    /// than the expiration date", but recoverable): `trashed_at` set, version + 1, media kept with
    /// the form, the owner notified (`Form 'X' expired after N days and was moved to the trash.`),
    /// one audit row (`expire`) per form.
    ///
    /// Works in batches of `batchSize` forms, each one IMMEDIATE transaction that selects its forms
    /// inside the write lock (oldest first, resuming after the last one a committed batch took),
    /// so memory holds one batch whatever the store's size and other consoles get the lock between
    /// batches. A failure
    /// keeps the batches already committed. `progress` gets the running count after each batch;
    /// `body` gets each expired form after its batch committed.
    ///
    /// - Returns: how many forms were expired.
    /// - Throws: `.invalidInput` for an empty actor or a batch size below 1; `.busy`; whatever `body` throws.
    @discardableResult
    public func expire(_ cutoff: ExpiryCutoff, actor: String, note: String? = nil, batchSize: Int = 1_000,
                       _ body: (ExpiredForm) throws -> Void = { _ in }, progress: (Int) -> Void = { _ in }) throws -> Int {
        let actor = try Validate.name(actor, what: "actor")
        guard batchSize >= 1 else { throw StoreError(.invalidInput, "The batch size must be 1 or more.") }
        var resume: (created: Double, id: Int64) = (-Double.greatestFiniteMagnitude, 0)
        var done = 0
        // A foreman's run takes his crews' forms only (the reach, ``FormQuery``).
        let query = expirable(cutoff)
        while true {
            // The resume position comes out of the transaction with its forms, and is kept
            // only once they committed: a transaction the engine runs again (a lost race, a
            // COMMIT that did not happen) must select the same forms as its first attempt.
            let (batch, next): ([ExpiredForm], (created: Double, id: Int64)?) = try write { db in
                let resumed = query.adding("""
                    forms.created_utc >= \(resume.created) AND (forms.created_utc > \(resume.created) OR forms.id > \(resume.id))
                    """)
                let rows = try db.rows(literal: """
                    SELECT \(SummarySQL.columns) FROM forms WHERE \(resumed.condition)
                    ORDER BY forms.created_utc, forms.id LIMIT \(batchSize)
                    """)
                let now = nowSeconds()
                let trashedAt = Date(timeIntervalSince1970: now)
                let trashedText = JSONValue.string(trashedAt.iso8601)
                let forms = try rows.map(Self.summary)
                // Each form's update, notice and audit row need only the rows read above: they go
                // in batches of ``trashFormsPerBatch`` forms (on PostgreSQL one round trip each
                // instead of three per form).
                var statements: [StoreStatement] = []
                statements.reserveCapacity(3 * forms.count)
                for form in forms {
                    var after = FormRecord.summary(owner: form.owner, name: form.name, state: form.state,
                                                   version: form.version + 1).objectValue
                    after["trashedAt"] = trashedText
                    statements += [
                        StoreStatement(literal: """
                            UPDATE forms SET trashed_at = \(now), version = version + 1, \(FormRecord.touching(now))
                            WHERE id = \(form.id) AND trashed_at IS NULL
                            """),
                        Notices.adding(uid: form.owner, text: Notices.expired(formName: form.name, days: cutoff.days),
                                       source: Notice.sourceExpire, formId: form.id, at: now),
                        try auditing(at: now, actor: actor, command: "expire", formId: form.id,
                                     object: "form \(form.id) \(form.owner)/\(form.name)",
                                     before: FormRecord.summary(owner: form.owner, name: form.name, state: form.state,
                                                                version: form.version),
                                     after: .object(after), note: note),
                    ]
                }
                let results = try db.batch(statements, atMost: 3 * Self.trashFormsPerBatch)
                let expired = try forms.indices.map { index in
                    ExpiredForm(form: forms[index], trashedAt: trashedAt, noticeId: try results[3 * index + 1].insertedId())
                }
                return (expired, rows.last.map { ($0["created_utc"], $0["id"]) })
            }
            if let next { resume = next }
            done += batch.count
            if !batch.isEmpty {
                logger.info("forms expired", metadata: ["count": "\(batch.count)", "total": "\(done)", "actor": "\(actor)"])
            }
            progress(done)
            for form in batch { try body(form) }
            if batch.count < batchSize { break }
        }
        return done
    }
}
