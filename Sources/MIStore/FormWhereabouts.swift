import Foundation

/// Where a form is now, for "my form vanished" (`find`, and the hint of a lookup that missed):
/// live with its owner, in the trash, or purged, with the owner and name it has (or last had).
/// How it got there is its audit trail (``FormStore/forEachAuditEntry(_:_:)`` by its id).
public struct FormWhereabouts: Sendable, Equatable {
    public enum Place: String, Sendable {
        case live, trash, purged
    }

    public let formId: Int64
    public let place: Place
    /// The owner and name it has now (live, trash) or had last (purged, from the audit trail).
    public let owner: String
    public let name: String
    /// Its state (`incomplete`, `completed`, `submitted`); nil once purged.
    public let state: String?
    /// Since when it is in the trash.
    public let trashedAt: Date?
}

/// What `find` looks for: a form reference (`12`, `jdoe/Pump station 4`), or a bare name
/// (`Pump station 4`) anywhere: any owner's form of that name, now or in the audit trail. A
/// name is taken as `forms --name` takes it: a glob (`*`, `?`, `\` for a literal), ASCII
/// letters in either case; `owner/name` first looks for that exact name, then as a glob.
public enum FindTarget: Sendable, Hashable {
    case reference(FormReference)
    case name(String)

    public init(_ text: String) {
        if let reference = try? FormReference(parsing: text) {
            self = .reference(reference)
        } else {
            self = .name(text.nfc)
        }
    }
}

extension FormStore {
    /// The forms `query` names, most recently changed first (at most `limit`), where they are
    /// now. A reference names one form: the live form of that owner and name, else a trashed
    /// one, else the form whose audit rows last gave it that name (so a moved or renamed form is
    /// found by the name it had); when there is none, its name is matched as a glob among that
    /// owner's forms, now or in the audit trail. A bare name, a glob, finds every such form.
    /// Forms outside the session's crews are left out by the statements' own condition
    /// (``FormQuery``), so an id of one (or a name that took a form out of them) finds nothing,
    /// as a missing one does, and their rows are not read; `owner/name` of an owner outside is
    /// refused by the owner before anything is read, whether or not such a form ever existed.
    public func whereabouts(_ query: FindTarget, limit: Int = 20) throws -> [FormWhereabouts] {
        let reached = formQuery(ownerColumn: "owner")
        return try read { db in
            var ids: [Int64] = []
            switch query {
            case .reference(let reference):
                try reached.checkOwner(of: reference)
                do {
                    ids = [try Audit.formId(reference, in: db)]
                } catch let error as StoreError where error.kind == .notFound {
                    guard case .path(let owner, let name) = reference else { return [] }
                    ids = try Self.formIds(named: name, owner: owner, within: reached, in: db)
                }
            case .name(let name):
                ids = try Self.formIds(named: name, owner: nil, within: reached, in: db)
            }
            var found: [FormWhereabouts] = []
            for id in ids where found.count < limit {
                guard let place = try Self.whereabouts(of: id, within: reached, in: db) else { continue }
                found.append(place)
            }
            return found
        }
    }

    /// The forms whose name (now, or in an audit row) matches the glob `pattern`, of `owner`
    /// when given: live and trashed ones most recently changed first, then those the audit
    /// trail alone knows. Live and trashed forms outside `query`'s reach are not read; an id
    /// the audit trail alone gives is placed (and left out) by ``whereabouts(of:within:in:)``.
    static func formIds(named pattern: String, owner: String?, within query: FormQuery,
                        in db: any StoreDatabase) throws -> [Int64] {
        let like = LikePattern.glob(pattern.nfc)
        func matches(_ side: String) -> StoreSQL {
            let name: StoreSQL = "lower(\(db.dialect.jsonText(side, "name"))) LIKE \(like) ESCAPE '\\'"
            guard let owner else { return name }
            return "(\(name) AND \(db.dialect.jsonText(side, "owner")) = \(owner.nfc))"
        }
        let ofOwner: StoreSQL = owner.map { " AND owner = \($0.nfc)" } ?? ""
        var ids = try db.values(Int64.self, literal: """
            SELECT id FROM forms WHERE lower(name) LIKE \(like) ESCAPE '\\'\(ofOwner) AND (\(query.condition))
            ORDER BY modified DESC
            """)
        for id in try db.values(Int64.self, literal: """
            SELECT form_id FROM audit WHERE form_id IS NOT NULL AND (\(matches("after")) OR \(matches("before")))
            GROUP BY form_id ORDER BY MAX(at) DESC
            """) where !ids.contains(id) {
            ids.append(id)
        }
        return ids
    }

    /// One form's place within `query`'s reach: its row, or (purged) the owner and name its last
    /// audit row gave it; nil when it is outside the reach (its row is not read) or unknown.
    static func whereabouts(of id: Int64, within query: FormQuery, in db: any StoreDatabase) throws -> FormWhereabouts? {
        if let row = try db.row(literal: """
            SELECT owner, name, state, trashed_at FROM forms WHERE id = \(id) AND (\(query.condition))
            """) {
            let trashed: Double? = row["trashed_at"]
            return FormWhereabouts(formId: id, place: trashed == nil ? .live : .trash, owner: row["owner"], name: row["name"],
                                   state: row["state"], trashedAt: trashed.map(Date.init(timeIntervalSince1970:)))
        }
        // A form outside the reach is still in `forms`: it is not purged, and not found here.
        guard try db.value(Int64.self, literal: "SELECT COUNT(*) FROM forms WHERE id = \(id)") == 0 else { return nil }
        let owner = db.dialect.jsonText("before", "owner"), name = db.dialect.jsonText("before", "name")
        guard let last = try db.row(literal: """
            SELECT \(owner) AS owner, \(name) AS name FROM audit WHERE form_id = \(id) AND before IS NOT NULL
            ORDER BY at DESC, id DESC LIMIT 1
            """) else { return nil }
        let lastOwner: String? = last["owner"], lastName: String? = last["name"]
        guard let lastOwner, let lastName, query.scope.allows(lastOwner) else { return nil }
        return FormWhereabouts(formId: id, place: .purged, owner: lastOwner, name: lastName, state: nil, trashedAt: nil)
    }
}
