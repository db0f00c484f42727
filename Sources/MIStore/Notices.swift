import Foundation

/// A message for a technician, shown at their next login (on a device: a line of `Error/<uid>`).
public struct Notice: Sendable, Hashable, Identifiable {
    public let id: Int64
    /// The technician it is for.
    public let uid: String
    public let text: String
    public let created: Date
    /// When it was marked read; nil while unread.
    public let readAt: Date?
    /// Where it came from: ``Notice/sourceMove``, ``Notice/sourceImport``, `expire`, `restore`,
    /// `purge` or `reopen`.
    public let source: String
    /// The form it is about, when known.
    public let formId: Int64?

    /// Written by ``FormStore/move(_:to:actor:actorRole:note:expectedVersion:)`` for the old owner.
    public static let sourceMove = "move"
    /// Written by ``FormStore/move(_:to:actor:actorRole:note:expectedVersion:)`` for the new owner.
    public static let sourceMoveReceived = "move.received"
    /// Written by an undo of a move for both technicians, in place of a move's pair.
    public static let sourceUndo = "move.undone"
    /// Left for the foremen of the crews a moved form's technician works in, and of a crew it
    /// was moved into from outside it.
    public static let sourceMoveIntoCrew = "move.crew"
    /// Left for the foremen of the owner's crews when an import brings a form in completed.
    public static let sourceCompleted = "import.completed"
    /// Read from an `Error/<uid>` file by ``FormStore/importTree(at:actor:)``.
    public static let sourceImport = "import"
}

enum Notices {
    /// Adds a notice: a statement for the transaction of the change that causes it (alone, or
    /// in its batch); it returns the notice's id.
    static func adding(uid: String, text: String, source: String, formId: Int64?, at: Double) -> StoreStatement {
        StoreStatement(literal: """
            INSERT INTO notices (uid, text, created, source, form_id)
            VALUES (\(uid), \(text), \(at), \(source), \(formId)) RETURNING id
            """)
    }

    /// The text the old owner of a moved form reads: the name they knew, the new owner, the new
    /// name when it changed, who did it in which role, and why.
    static func reassigned(formName: String, newName: String, to uid: String, by actor: String, role: String,
                           reason: String?) -> String {
        let renamed = newName == formName ? "" : " as '\(newName)'"
        return "Form '\(formName)' was reassigned to \(uid)\(renamed) by \(role) \(actor)" + because(reason)
    }

    /// The text the new owner of a moved form reads.
    static func received(formName: String, oldName: String, from uid: String, by actor: String, role: String,
                         reason: String?) -> String {
        let was = oldName == formName ? "" : " (was '\(oldName)')"
        return "Form '\(formName)'\(was) was given to you from \(uid) by \(role) \(actor)" + because(reason)
    }

    /// The text the technician reads who loses a form because its move to him was undone.
    static func undoneAway(formName: String, newName: String, to uid: String, by actor: String, role: String,
                           reason: String?) -> String {
        let renamed = newName == formName ? "" : " as '\(newName)'"
        return "The move of form '\(formName)' to you was undone: it went back to \(uid)\(renamed) by \(role) \(actor)"
            + because(reason)
    }

    /// The text the technician reads who gets a form back because its move away was undone.
    static func undoneBack(formName: String, oldName: String, from uid: String, by actor: String, role: String,
                           reason: String?) -> String {
        let was = oldName == formName ? "" : " (named '\(oldName)' at \(uid))"
        return "The move of form '\(formName)'\(was) to \(uid) was undone: it is yours again, by \(role) \(actor)"
            + because(reason)
    }

    /// The text a foreman reads when a form came into his crew from outside it, or when a form
    /// of a technician of his crew was given to another.
    static func movedForCrew(formName: String, _ told: CrewForemanToTell, to uid: String, from previous: String,
                             by actor: String, role: String, reason: String?) -> String {
        func crew(_ names: [String]) -> String { names.isEmpty ? "your crew" : "your crew (\(names.joined(separator: ", ")))" }
        guard !told.from.isEmpty else {
            return "Form '\(formName)' came into \(crew(told.into)): given to \(uid) from \(previous) by \(role) \(actor)"
                + because(reason)
        }
        let into = told.into.isEmpty ? "" : ", into \(crew(told.into))"
        return "Form '\(formName)' of \(previous) in \(crew(told.from)) was given to \(uid)\(into) by \(role) \(actor)"
            + because(reason)
    }

    /// The text a foreman reads when a form of his crew was completed on the device.
    static func completed(formName: String, owner: String, id: Int64) -> String {
        "Form \(id) '\(formName)' of \(owner) was completed and waits for your review."
    }

    /// `: reason` after a notice's sentence, or the closing full stop without one.
    static func because(_ reason: String?) -> String {
        guard let reason, !reason.allSatisfy(\.isWhitespace) else { return "." }
        return ": " + reason
    }

    static func notice(_ row: StoreRow) -> Notice {
        Notice(id: row["id"], uid: row["uid"], text: row["text"], created: Date(timeIntervalSince1970: row["created"]),
               readAt: (row["read_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
               source: row["source"], formId: row["form_id"])
    }
}

extension FormStore {
    /// The notices of `uid`, oldest first; only unread ones unless `unreadOnly` is false.
    public func notices(for uid: String, unreadOnly: Bool = true) throws -> [Notice] {
        try ownerScope.check(uid)
        return try read { db in
            try db.rows(literal: """
                SELECT id, uid, text, created, read_at, source, form_id FROM notices
                WHERE uid = \(uid.nfc) \(unreadOnly ? "AND read_at IS NULL" : "" as StoreSQL) ORDER BY id
                """).map(Notices.notice)
        }
    }

    /// Marks the given notices read (already-read ones are left alone); returns how many changed.
    /// Audited when anything changed.
    @discardableResult
    public func markRead(ids: [Int64], actor: String) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let actor = try Validate.name(actor, what: "actor")
        return try write { db in
            let now = nowSeconds()
            var changed: [Int64] = []
            for id in ids {
                if let uid = try db.value(String.self, literal: "SELECT uid FROM notices WHERE id = \(id)") {
                    try ownerScope.check(uid)
                }
                if try db.execute(literal: "UPDATE notices SET read_at = \(now) WHERE id = \(id) AND read_at IS NULL") > 0 {
                    changed.append(id)
                }
            }
            if !changed.isEmpty {
                try audit(db, at: now, actor: actor, command: "notices.read", formId: nil,
                                 object: "notices \(changed.map(String.init).joined(separator: ","))",
                                 before: nil, after: .object(JSONObject([("read", .array(changed.map { .integer(Int($0)) }))])),
                                 note: nil)
            }
            return changed.count
        }
    }

    /// Marks every unread notice of `uid` read; returns how many changed. Audited when anything changed.
    @discardableResult
    public func markAllRead(for uid: String, actor: String) throws -> Int {
        let uid = try Validate.uid(uid)
        let actor = try Validate.name(actor, what: "actor")
        try ownerScope.check(uid)
        return try write { db in
            let now = nowSeconds()
            let count = try db.execute(literal: "UPDATE notices SET read_at = \(now) WHERE uid = \(uid) AND read_at IS NULL")
            if count > 0 {
                try audit(db, at: now, actor: actor, command: "notices.read", formId: nil, object: "notices of \(uid)",
                                 before: nil, after: .object(JSONObject([("count", .integer(count))])), note: nil)
            }
            return count
        }
    }
}
