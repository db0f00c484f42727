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
/// (`Pump station 4`) anywhere: any owner's form of that name, now or in the audit trail.
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
    /// found by the name it had). A bare name finds every such form. Forms outside the session's
    /// crews are left out by the statements' own condition (``FormQuery``), so an id of one (or
    /// a name that took a form out of them) finds nothing, as a missing one does, and their rows
    /// are not read; `owner/name` of an owner outside is refused by the owner before anything is
    /// read, whether or not such a form ever existed.
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
                    return []
                }
            case .name(let name):
                let after = db.dialect.jsonText("after", "name"), before = db.dialect.jsonText("before", "name")
                ids = try db.values(Int64.self, literal: """
                    SELECT id FROM forms WHERE name = \(name) AND (\(reached.condition)) ORDER BY modified DESC
                    """)
                for id in try db.values(Int64.self, literal: """
                    SELECT form_id FROM audit WHERE form_id IS NOT NULL AND (\(after) = \(name) OR \(before) = \(name))
                    GROUP BY form_id ORDER BY MAX(at) DESC
                    """) where !ids.contains(id) {
                    ids.append(id)
                }
            }
            var found: [FormWhereabouts] = []
            for id in ids where found.count < limit {
                guard let place = try Self.whereabouts(of: id, within: reached, in: db) else { continue }
                found.append(place)
            }
            return found
        }
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
