import Foundation

/// One problem ``FormStore/check(_:)`` found.
public struct StoreFinding: Sendable, Hashable {
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `PRAGMA integrity_check` reported damage to the database file.
        public static let integrity = Kind(rawValue: "integrity")
        /// A media file's bytes do not have the size or SHA-256 recorded when it was stored.
        public static let media = Kind(rawValue: "media")
        /// A form's stored questions (or other form.json content) cannot be read.
        public static let unreadable = Kind(rawValue: "unreadable")
        /// A live form breaks a rule of the field app (``RuleViolation``).
        public static let rule = Kind(rawValue: "rule")
        /// A row whose owner, name or media file name breaks the tree's path rules: `export`
        /// would have written outside its folder, so it skips the row.
        public static let path = Kind(rawValue: "path")
    }

    public let kind: Kind
    /// The form concerned, if any.
    public let formId: Int64?
    /// Its state, if a form is concerned.
    public let formState: FormState?
    /// Whether the form is in the trash.
    public let trashed: Bool
    /// What is concerned, readable (`form 12 jdoe/Pump`, `form 12 jdoe/Pump: Qid1(2).jpg`, `store`).
    public let object: String
    public let message: String
}

extension FormStore {
    /// Verifies the store and calls `body` with each problem, streaming:
    /// 1. `PRAGMA integrity_check`;
    /// 2. every media file's bytes against its recorded size and SHA-256;
    /// 3. every form's stored content (questions JSON and the rest) readable;
    /// 4. the field app's rules for live forms (``review(_:)``'s violations);
    /// 5. owners, names and media file names that break the tree's path rules (``TreePathRules``),
    ///    forms and notices alike: rows `export` skips rather than write outside its folder.
    ///
    /// Trashed forms are checked for 2 and 3 (they can still be restored). Reads one snapshot;
    /// changes nothing. Whether owners are still technicians is the caller's part (the directory).
    /// A foreman's check covers his crews' forms and notices (``FormQuery``: no other form or
    /// media file is read, so none is hashed); the store file's own integrity is everybody's.
    public func check(_ body: (StoreFinding) throws -> Void) throws {
        let scope = ownerScope
        let reached = formQuery()
        // The engine's own check of its storage (SQLite's integrity_check).
        for line in try engine.integrityProblems() where line != "ok" {
            try body(StoreFinding(kind: .integrity, formId: nil, formState: nil, trashed: false, object: "store", message: line))
        }
        try readListing { db in
            try db.forEachRow(literal: """
                SELECT media.form_id, media.file_name, media.size, media.sha256, media.data,
                       forms.owner, forms.name, forms.state, forms.trashed_at
                FROM media JOIN forms ON forms.id = media.form_id WHERE \(reached.condition)
                ORDER BY media.form_id, media.file_name
                """) { row in
                let data: Data = row["data"] ?? Data()
                let size: Int = row["size"], recorded: String = row["sha256"]
                var problems: [String] = []
                if data.count != size { problems.append("\(data.count) bytes stored, \(size) recorded") }
                if MediaDigest.hex(data) != recorded { problems.append("SHA-256 does not match the one recorded") }
                guard !problems.isEmpty else { return }
                let formId: Int64 = row["form_id"], fileName: String = row["file_name"]
                try body(StoreFinding(kind: .media, formId: formId, formState: FormState(rawValue: row["state"]),
                                      trashed: row["trashed_at"] as Double? != nil,
                                      object: "form \(formId) \(row["owner"] as String)/\(row["name"] as String): \(fileName)",
                                      message: "media file \(fileName) is damaged: " + problems.joined(separator: "; ")))
            }
            try db.forEachRow(literal: """
                SELECT \(FormRecord.columns), forms.trashed_at FROM forms WHERE \(reached.condition) ORDER BY id
                """) { row in
                let trashed = row["trashed_at"] as Double? != nil
                let record: FormRecord
                do {
                    record = try FormRecord(row: row)
                } catch {
                    try body(StoreFinding(kind: .unreadable, formId: row["id"], formState: nil, trashed: trashed,
                                          object: "form \(row["id"] as Int64)", message: "\(error)"))
                    return
                }
                let document: FormDocument
                do {
                    document = try record.document(foremanComments: [])
                } catch {
                    let reason = (error as? StoreError)?.message ?? "\(error)"
                    try body(StoreFinding(kind: .unreadable, formId: record.id, formState: record.state, trashed: trashed,
                                          object: record.label, message: "the stored form content cannot be read: \(reason)"))
                    return
                }
                let names = try db.values(String.self, literal: "SELECT file_name FROM media WHERE form_id = \(record.id)")
                for problem in [TreePathRules.ownerProblem(record.owner), TreePathRules.formNameProblem(record.name)]
                    .compactMap({ $0 }) + names.compactMap(TreePathRules.mediaNameProblem) {
                    try body(StoreFinding(kind: .path, formId: record.id, formState: record.state, trashed: trashed,
                                          object: record.label, message: problem + "; export skips this form"))
                }
                guard !trashed else { return }
                for violation in Rules.check(document, state: record.state, mediaNames: names) {
                    try body(StoreFinding(kind: .rule, formId: record.id, formState: record.state, trashed: false,
                                          object: record.label, message: "\(violation.rule): \(violation.message)"))
                }
            }
            let reachedUids = scope.condition("uid") ?? "1 = 1"
            for uid in try db.values(String.self, literal: "SELECT DISTINCT uid FROM notices WHERE \(reachedUids) ORDER BY uid") {
                guard let problem = TreePathRules.ownerProblem(uid) else { continue }
                try body(StoreFinding(kind: .path, formId: nil, formState: nil, trashed: false, object: "notices of \(uid)",
                                      message: problem + "; export skips these notices"))
            }
        }
    }

    /// Calls `body` with each owner of live incomplete or completed forms (by uid) and how many
    /// such forms they own — the forms someone still has to work on — within the reach.
    /// Submitted forms are done and trashed ones wait for purge, so their owners are not listed.
    public func forEachOwner(_ body: (_ uid: String, _ forms: Int) throws -> Void) throws {
        let query = formQuery(ownerColumn: "owner").adding("trashed_at IS NULL AND state IN ('incomplete', 'completed')")
        try read { db in
            try db.forEachRow(literal: """
                SELECT owner, COUNT(*) AS forms FROM forms
                WHERE \(query.condition) GROUP BY owner ORDER BY owner
                """) { row in try body(row["owner"], row["forms"]) }
        }
    }
}
