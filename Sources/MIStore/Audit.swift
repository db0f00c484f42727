import Foundation

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
    /// Only rows before this time.
    public var until: Date?
    /// Only rows by this actor.
    public var actor: String?
    /// Only rows about this form, followed by its id through renames, moves and the trash: an
    /// `owner/name` reference is resolved to an id once (the live form of that name, else a
    /// trashed one, else the form that last carried that name in the audit trail).
    public var form: FormReference?
    /// Only rows of these operations (`move`, `expire`); a family name takes its members
    /// (`import` takes `import.insert` and `import.update`). Empty: every operation.
    public var commands: [String]
    /// Only the newest this many rows (still listed oldest first).
    public var newest: Int?

    public init(since: Date? = nil, until: Date? = nil, actor: String? = nil, form: FormReference? = nil,
                command: String? = nil, commands: [String] = [], newest: Int? = nil) {
        self.since = since
        self.until = until
        self.actor = actor
        self.form = form
        self.commands = commands + (command.map { [$0] } ?? [])
        self.newest = newest
    }

    /// The operations the store writes audit rows for, by the names the rows carry. A filter
    /// naming anything else could match nothing (``isKnownCommand(_:)``).
    public static let knownCommands = [
        "comment", "deliveries.dismiss", "deliveries.retry", "expire", "import.insert", "import.notices", "import.update", "move",
        "notices.read", "policy.set", "purge", "reopen", "restore", "store.copy", "submit",
    ]

    /// Whether `name` matches rows: a known operation, or a family of them (`import`, `policy`).
    public static func isKnownCommand(_ name: String) -> Bool {
        knownCommands.contains { $0 == name || $0.hasPrefix(name + ".") }
    }

    /// Every name a filter may give: the operations and their families, sorted.
    public static var commandNames: [String] {
        Set(knownCommands + knownCommands.compactMap { $0.split(separator: ".").count > 1 ? String($0.prefix { $0 != "." }) : nil })
            .sorted()
    }
}

enum Audit {
    /// Writes one audit row; call it inside the transaction of the change it describes.
    static func record(_ db: any StoreDatabase, at: Double, actor: String, command: String, formId: Int64?, object: String,
                       before: JSONValue?, after: JSONValue?, note: String?) throws {
        try db.execute(recording(at: at, actor: actor, command: command, formId: formId, object: object,
                                 before: before, after: after, note: note))
    }

    /// ``record(_:at:actor:command:formId:object:before:after:note:)`` as a statement for a batch.
    static func recording(at: Double, actor: String, command: String, formId: Int64?, object: String,
                          before: JSONValue?, after: JSONValue?, note: String?) -> StoreStatement {
        let before = before.map(JSONWriter.compact), after = after.map(JSONWriter.compact)
        // Every row passes here: the relay (audit.syslog) gets it once its transaction commits.
        PendingAudit.current?.records.append(AuditRecord(at: Date(timeIntervalSince1970: at), actor: actor, command: command,
                                                         formId: formId, object: object, before: before, after: after, note: note))
        return StoreStatement(literal: """
            INSERT INTO audit (at, actor, command, form_id, object, before, after, note)
            VALUES (\(at), \(actor), \(command), \(formId), \(object), \(before), \(after), \(note))
            """)
    }

    /// The id of the form `ref` names for the audit trail: an id as given; `owner/name` as the
    /// live form of that name, else the most recently trashed one, else the form whose audit rows
    /// last gave it that name (before or after a move or a restore).
    static func formId(_ ref: FormReference, in db: any StoreDatabase) throws -> Int64 {
        switch ref {
        case .id(let id):
            return id
        case .path(let owner, let name):
            if let id = try db.value(Int64.self, literal: """
                SELECT id FROM forms WHERE owner = \(owner) AND name = \(name) ORDER BY trashed_at IS NOT NULL, trashed_at DESC LIMIT 1
                """) {
                return id
            }
            let dialect = db.dialect
            // Each use of owner and name is its own argument: no placeholder is numbered by hand.
            if let id = try db.value(Int64.self, literal: """
                SELECT form_id FROM audit WHERE form_id IS NOT NULL AND (
                    (\(dialect.jsonText("after", "owner")) = \(owner) AND \(dialect.jsonText("after", "name")) = \(name)) OR
                    (\(dialect.jsonText("before", "owner")) = \(owner) AND \(dialect.jsonText("before", "name")) = \(name)))
                ORDER BY at DESC, id DESC LIMIT 1
                """) {
                return id
            }
            throw StoreError(.notFound, "No form '\(name)' of \(owner), now or in the audit trail.")
        }
    }
}

extension FormStore {
    /// Calls `body` with each audit row matching `filter`, oldest first (by time, then id), streaming
    /// from a cursor over an index.
    ///
    /// The rows come from one consistent snapshot; `body` may call the store (see ``forEachForm(_:_:)``).
    public func forEachAuditEntry(_ filter: AuditFilter = AuditFilter(), _ body: (AuditEntry) throws -> Void) throws {
        try readListing { db in
            var conditions: [StoreSQL] = []
            if let since = filter.since {
                conditions.append("at >= \(since.timeIntervalSince1970)")
            }
            if let until = filter.until {
                conditions.append("at < \(until.timeIntervalSince1970)")
            }
            if let actor = filter.actor {
                conditions.append("actor = \(actor.nfc)")
            }
            let reached = formQuery(ownerColumn: "owner")
            if let ref = filter.form {
                // Another crew's owner is refused by name whether or not he has such a form; an
                // id is answered with the rows in reach (none for another crew's form, as for a
                // missing one).
                try reached.checkOwner(of: ref)
                conditions.append("form_id = \(try Audit.formId(ref, in: db))")
            }
            if let inReach = reached.auditRows(db.dialect) { conditions.append(inReach) }
            if !filter.commands.isEmpty {
                // "policy" also matches "policy.set": the range of names starting "policy."
                // ('/' is the character after '.'), which reads the same on both engines.
                var matches: [StoreSQL] = []
                for command in filter.commands {
                    matches.append("command = \(command) OR (command >= \(command + ".") AND command < \(command + "/"))")
                }
                conditions.append("(\(matches.joined(separator: " OR ")))")
            }
            let whereClause: StoreSQL = conditions.isEmpty ? "" : "WHERE \(conditions.joined(separator: " AND "))"
            let columns: StoreSQL = "id, at, actor, command, form_id, object, before, after, note"
            var sql: StoreSQL = "SELECT \(columns) FROM audit \(whereClause) ORDER BY at, id"
            if let newest = filter.newest {
                sql = """
                    SELECT * FROM (SELECT \(columns) FROM audit \(whereClause) ORDER BY at DESC, id DESC \
                    LIMIT \(max(0, newest))) AS newest ORDER BY at, id
                    """
            }
            try db.forEachRow(literal: sql) { row in
                try body(AuditEntry(id: row["id"], at: Date(timeIntervalSince1970: row["at"]), actor: row["actor"],
                                    command: row["command"], formId: row["form_id"], object: row["object"],
                                    before: row["before"], after: row["after"], note: row["note"]))
            }
        }
    }
}

extension FormQuery {
    /// The audit rows the reach shows (nil for everyone). A form's row while the form was in
    /// the reach: its owner before or after the change is (a row that names no owner: the
    /// form's owner now is). A row of no form: one the reach's people made, or a site-wide one
    /// that is not another crew's (another crew's policy, other people's notices read or
    /// imported).
    func auditRows(_ dialect: StoreDialect) -> StoreSQL? {
        guard let owners = scope.condition("actor") else { return nil }
        let before = dialect.jsonText("before", "owner"), after = dialect.jsonText("after", "owner")
        let ownerBefore = scope.condition(before) ?? "1 = 0", ownerAfter = scope.condition(after) ?? "1 = 0"
        let formNow = "form_id IN (SELECT id FROM forms WHERE \(condition))" as StoreSQL
        let formRow: StoreSQL = """
            form_id IS NOT NULL AND ((\(ownerBefore)) OR (\(ownerAfter)) OR \
            (\(before) IS NULL AND \(after) IS NULL AND \(formNow)))
            """
        // "notices of jdoe": the uid from the 12th character on.
        let noticesOf = scope.condition("substr(object, 12)") ?? "1 = 0"
        let crewPolicies = scope.crews.map { crew -> StoreSQL in
            let prefix = "policy team \(crew) "
            // An integer parameter reaches PostgreSQL as bigint, and its substr takes integer.
            return "substr(object, 1, CAST(\(prefix.unicodeScalars.count) AS integer)) = \(prefix)"
        }
        let ownCrewPolicy = crewPolicies.isEmpty ? "1 = 0" : crewPolicies.joined(separator: " OR ")
        let siteRow: StoreSQL = """
            form_id IS NULL AND ((\(owners)) OR \
            (command = 'import.notices' AND (\(noticesOf))) OR \
            (command = 'policy.set' AND object LIKE 'policy team %' AND (\(ownCrewPolicy))) OR \
            (command NOT IN ('notices.read', 'import.notices') AND NOT (command = 'policy.set' AND object LIKE 'policy team %')))
            """
        return "((\(formRow)) OR (\(siteRow)))"
    }
}
