import Foundation
import GRDB

/// One row of the audit trail: who changed what, when, and how it looked before and after.
public struct AuditEntry: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let at: Date
    /// Who did it (a foreman's uid, or the import's actor).
    public let actor: String
    /// The operation: `move`, `comment`, `submit`, `import.insert`, `import.update`, `notices.read`,
    /// `expire`, `restore`, `purge`, `reopen`, `policy.set`.
    public let command: String
    /// The form concerned, if any (kept after the form itself is gone).
    public let formId: Int64?
    /// What was changed, readable (`form 12 jdoe/Pump station 4`, `notices of jdoe`).
    public let object: String
    /// Compact JSON of the changed fields before the change (nil for a creation).
    public let before: String?
    /// Compact JSON of the changed fields after the change.
    public let after: String?
    /// The caller's free-text reason, if given.
    public let note: String?
}

/// Which audit rows ``FormStore/forEachAuditEntry(_:_:)`` shows; `nil` fields do not filter.
public struct AuditFilter: Sendable, Hashable {
    /// Only rows at or after this time.
    public var since: Date?
    /// Only rows by this actor.
    public var actor: String?
    /// Only rows about this form (an `owner/name` reference is resolved to the live form's id first).
    public var form: FormReference?

    public init(since: Date? = nil, actor: String? = nil, form: FormReference? = nil) {
        self.since = since
        self.actor = actor
        self.form = form
    }
}

enum Audit {
    /// Writes one audit row; call it inside the transaction of the change it describes.
    static func record(_ db: Database, at: Double, actor: String, command: String, formId: Int64?, object: String,
                       before: JSONValue?, after: JSONValue?, note: String?) throws {
        // A cached statement: expiry and purge write one row per form, 100,000 in a big run.
        try db.cachedStatement(sql: """
            INSERT INTO audit (at, actor, command, form_id, object, before, after, note)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [at, actor, command, formId, object,
                                     before.map(JSONWriter.compact), after.map(JSONWriter.compact), note])
    }
}

extension FormStore {
    /// Calls `body` with each audit row matching `filter`, oldest first (by time, then id), streaming
    /// from a cursor over an index.
    ///
    /// The rows come from one consistent snapshot; `body` may call the store (see ``forEachForm(_:_:)``).
    public func forEachAuditEntry(_ filter: AuditFilter = AuditFilter(), _ body: (AuditEntry) throws -> Void) throws {
        try read { db in
            var conditions: [String] = []
            var arguments = StatementArguments()
            if let since = filter.since {
                conditions.append("at >= ?")
                arguments += [since.timeIntervalSince1970]
            }
            if let actor = filter.actor {
                conditions.append("actor = ?")
                arguments += [actor.nfc]
            }
            if let ref = filter.form {
                let formId: Int64
                switch ref {
                case .id(let id): formId = id
                case .path: formId = try FormRecord.find(ref, in: db).id
                }
                conditions.append("form_id = ?")
                arguments += [formId]
            }
            let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let cursor = try Row.fetchCursor(db, sql: """
                SELECT id, at, actor, command, form_id, object, before, after, note FROM audit \(whereClause) ORDER BY at, id
                """, arguments: arguments)
            while let row = try cursor.next() {
                try body(AuditEntry(id: row["id"], at: Date(timeIntervalSince1970: row["at"]), actor: row["actor"],
                                    command: row["command"], formId: row["form_id"], object: row["object"],
                                    before: row["before"], after: row["after"], note: row["note"]))
            }
        }
    }
}
