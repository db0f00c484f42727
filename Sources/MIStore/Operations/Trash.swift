import Foundation

/// A form in the trash (expired, not yet purged).
public struct TrashedForm: Sendable, Hashable {
    /// The form as it was trashed: its owner and name then.
    public let form: FormSummary
    public let trashedAt: Date
}

/// What ``FormStore/restore(_:actor:note:)`` did.
public struct RestoreResult: Sendable, Hashable {
    public let formId: Int64
    public let owner: String
    /// The name in the trash.
    public let oldName: String
    /// The name it has again: `oldName`, or `Base (k)` when the owner has a live form of that name now.
    public let newName: String
    public let version: Int
    /// The notice left for the owner.
    public let noticeId: Int64

    public var renamed: Bool { oldName != newName }
}

extension Notice {
    /// Left for the owner by ``FormStore/restore(_:actor:note:)``.
    public static let sourceRestore = "restore"
}

extension Notices {
    static func restored(oldName: String, newName: String, by actor: String) -> String {
        oldName == newName
            ? "Form '\(oldName)' was restored from the trash by \(actor)."
            : "Form '\(oldName)' was restored from the trash by \(actor) as '\(newName)'."
    }
}

extension FormStore {
    /// Calls `body` with each trashed form (of `owner`, when given), oldest in the trash first;
    /// streamed from an index.
    public func forEachTrashedForm(owner: String? = nil, _ body: (TrashedForm) throws -> Void) throws {
        var query = formQuery()
        query.add("forms.trashed_at IS NOT NULL")
        if let owner { query.add("forms.owner = \(owner.nfc)") }
        try forEachTrashed(query, body)
    }

    /// Calls `body` with each form `query` finds, as a trashed form, oldest in the trash first.
    func forEachTrashed(_ query: FormQuery, _ body: (TrashedForm) throws -> Void) throws {
        try read { db in
            try db.forEachRow(literal: """
                SELECT \(SummarySQL.columns), forms.trashed_at FROM forms
                WHERE \(query.condition) ORDER BY forms.trashed_at, forms.id
                """) { row in
                try body(TrashedForm(form: try Self.summary(row), trashedAt: Date(timeIntervalSince1970: row["trashed_at"])))
            }
        }
    }

    /// Takes a form out of the trash, back to its owner as an incomplete form. If the owner has a
    /// live form of that name now, it is renamed `Base (k)` exactly as ``move(_:to:actor:note:expectedVersion:)``
    /// renames. Expiry counts from now for it (it is not expired again by the next run). Version + 1,
    /// a notice for the owner, one audit row (`restore`).
    ///
    /// `ref` is the form's id, or `owner/name` as it was trashed (the most recently trashed such form).
    ///
    /// - Throws: `.notFound` (no such form in the trash); `.invalidState` (the form is not in the
    ///   trash); `.invalidInput`; `.busy`.
    @discardableResult
    public func restore(_ ref: FormReference, actor: String, note: String? = nil) throws -> RestoreResult {
        let actor = try Validate.name(actor, what: "actor")
        let result: RestoreResult = try write { db in
            let form = try formQuery().findTrashed(ref, in: db)
            let newName = try FormNames.freeName(for: form.name, owner: form.owner, in: db)
            let now = nowSeconds()
            var before = form.summaryJSON.objectValue
            before["trashed"] = .bool(true)
            // The update, the notice and the audit row need none of each other's results: one
            // batch (on PostgreSQL one round trip instead of three).
            let results: [[StoreRow]]
            do {
                results = try db.batch([
                    StoreStatement(literal: """
                        UPDATE forms SET trashed_at = NULL, name = \(newName), state = 'incomplete', version = version + 1,
                                         expiry_reset_at = \(now), \(FormRecord.touching(now))
                        WHERE id = \(form.id)
                        """),
                    Notices.adding(uid: form.owner, text: Notices.restored(oldName: form.name, newName: newName, by: actor),
                                   source: Notice.sourceRestore, formId: form.id, at: now),
                    try auditing(at: now, actor: actor, command: "restore", formId: form.id, object: form.label,
                                 before: .object(before),
                                 after: FormRecord.summary(owner: form.owner, name: newName, state: .incomplete,
                                                           version: form.version + 1),
                                 note: note),
                ])
            } catch let error as StoreError where error.isUniqueViolation {
                // Only the update can break a unique index (the live name); a serialization
                // failure passes on as what it is.
                throw StoreError(.conflict, "\(form.owner) got a form named '\(newName)' at the same moment; try again.",
                                 sqlState: error.sqlState)
            }
            let noticeId = try results[1].insertedId()
            return RestoreResult(formId: form.id, owner: form.owner, oldName: form.name, newName: newName,
                                 version: form.version + 1, noticeId: noticeId)
        }
        logger.info("form restored", metadata: ["form": "\(result.formId)", "name": "\(result.newName)", "actor": "\(actor)"])
        return result
    }

    /// The trashed form `ref` names; a form outside `reach` (a ``FormQuery``'s condition) is
    /// not read, and an id of one is answered as a missing one.
    static func findTrashed(_ ref: FormReference, reach: StoreSQL = "1 = 1", in db: any StoreDatabase) throws -> FormRecord {
        switch ref {
        case .id(let id):
            guard let row = try db.row(literal: """
                SELECT \(FormRecord.columns), forms.trashed_at FROM forms WHERE id = \(id) AND (\(reach))
                """) else {
                throw StoreError.noSuchForm(ref)
            }
            guard row["trashed_at"] as Double? != nil else {
                let form = try FormRecord(row: row)
                throw StoreError(.invalidState, "Form \(id) '\(form.name)' of \(form.owner) is not in the trash.")
            }
            return try FormRecord(row: row)
        case .path(let owner, let name):
            guard let row = try db.row(literal: """
                SELECT \(FormRecord.columns) FROM forms WHERE owner = \(owner) AND name = \(name) AND trashed_at IS NOT NULL
                ORDER BY trashed_at DESC, id DESC LIMIT 1
                """) else {
                throw StoreError(.notFound, "\(owner) has no form named '\(name)' in the trash.")
            }
            return try FormRecord(row: row)
        }
    }
}
