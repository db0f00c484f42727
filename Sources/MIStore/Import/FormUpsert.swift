import Foundation

/// Stores one ``LoadedForm`` inside a write transaction: insert, update, or leave alone.
///
/// A form is keyed by (owner, name) among live forms:
/// - not in the store: inserted;
/// - same content and media: unchanged;
/// - same `created`, later `modified`, allowed state step (incomplete -> incomplete/completed,
///   completed -> completed): updated (content and media replaced, version + 1);
/// - anything else: a collision; the store's copy is kept.
///
/// `foremanComments` from form.json become ``ForemanComment`` rows by ``importedCommentAuthor``
/// (only what the store does not already have: text equal to the stored comments joined with
/// newlines, or starting with them, adds nothing or only the rest).
enum FormUpsert {
    enum Outcome {
        case inserted(Int64)
        /// The form's id and its state before the update.
        case updated(Int64, from: FormState)
        case unchanged(Int64)
        case collision(ImportIssue.Reason)
    }

    static let importedCommentAuthor = "(form.json)"

    /// A form's writes (its media, its comment, its audit row), sent in order in batches of at
    /// most ``statementsPerBatch`` statements and about ``mediaBytesPerBatch`` of media (a batch
    /// holds its media bound at once). Nothing needs their results: the last batch goes with the
    /// transaction's COMMIT (``StoreDatabase/sendLater(_:)``), so on PostgreSQL a form's usual
    /// handful of photos costs no round trip of its own, very many or very large ones a bounded
    /// number.
    private struct Writes {
        static let statementsPerBatch = 100
        static let mediaBytesPerBatch = 16 << 20
        private var batches: [[StoreStatement]] = [[]]
        private var bytes = 0

        mutating func append(_ statement: StoreStatement, mediaBytes: Int = 0) {
            if batches[batches.count - 1].count >= Self.statementsPerBatch
                || (bytes > 0 && bytes + mediaBytes > Self.mediaBytesPerBatch) {
                batches.append([])
                bytes = 0
            }
            batches[batches.count - 1].append(statement)
            bytes += mediaBytes
        }

        mutating func append(media: [LoadedMedia], formId: Int64) {
            for item in media { append(FormUpsert.inserting(item, formId: formId), mediaBytes: item.data.count) }
        }

        func run(in db: any StoreDatabase) throws {
            for batch in batches.dropLast() { try db.batch(batch) }
            try db.sendLater(batches[batches.count - 1])
        }
    }

    static func run(_ form: LoadedForm, actor: String, at now: Double, in db: any StoreDatabase,
                    warnings: inout [ImportIssue]) throws -> Outcome {
        let document = form.document
        guard let existing = try Existing.fetch(form, in: db) else {
            return .inserted(try insert(form, actor: actor, at: now, in: db))
        }
        let stored = existing.record, storedMedia = existing.media, sameContent = existing.sameContent
        if !sameContent {
            if let reason = collisionReason(stored: stored, incoming: form) { return .collision(reason) }
        }
        // What the update writes needs only the rows read above: batched (``Writes``; on
        // PostgreSQL one round trip instead of one per statement and media file).
        var writes = Writes()
        var addedComment: String?
        switch commentMerge(document.foremanComments, stored: existing.comments) {
        case .nothing: break
        case .differs:
            warnings.append(ImportIssue(path: form.path + "/" + FormFolderReader.formFile,
                                        reason: "foremanComments differ from the store's foreman comments; the store's were kept"))
        case .add(let addition):
            writes.append(addingComment(addition, formId: stored.id, at: now))
            addedComment = addition
        }
        if sameContent && addedComment == nil { return .unchanged(stored.id) }

        if !sameContent {
            writes.append(StoreStatement(literal: """
                UPDATE forms SET template = \(document.template), template_id = \(document.templateId),
                                 state = \(form.state.rawValue), created = \(document.created.text),
                                 created_utc = \(document.created.date.timeIntervalSince1970),
                                 modified = \(document.modified.text),
                                 modified_utc = \(document.modified.date.timeIntervalSince1970),
                                 questions = \(JSONWriter.compact(document.questionsJSON)), extra = \(extraJSON(document))
                WHERE id = \(stored.id)
                """))
            writes.append(StoreStatement(literal: "DELETE FROM media WHERE form_id = \(stored.id)"))
            writes.append(media: form.media, formId: stored.id)
        }
        writes.append(StoreStatement(literal: "UPDATE forms SET version = version + 1 WHERE id = \(stored.id)"))
        var before = stored.summaryJSON.objectValue
        before["modified"] = .string(stored.modified.text)
        before["media"] = .integer(storedMedia.count)
        var after = FormRecord.summary(owner: stored.owner, name: stored.name, state: form.state,
                                       version: stored.version + 1).objectValue
        after["modified"] = .string(document.modified.text)
        after["media"] = .integer(form.media.count)
        if let addedComment { after["addedComment"] = .string(addedComment) }
        writes.append(Audit.recording(at: now, actor: actor, command: "import.update", formId: stored.id, object: stored.label,
                                      before: .object(before), after: .object(after), note: "from \(form.path)"))
        try writes.run(in: db)
        return .updated(stored.id, from: stored.state)
    }

    /// What ``run(_:actor:at:in:warnings:)`` would do, decided without writing (the import
    /// preview runs on a read transaction, so it does not hold the store's write lock).
    /// An insert is reported with id 0.
    static func preview(_ form: LoadedForm, in db: any StoreDatabase) throws -> Outcome {
        guard let existing = try Existing.fetch(form, in: db) else { return .inserted(0) }
        let stored = existing.record
        if !existing.sameContent, let reason = collisionReason(stored: stored, incoming: form) { return .collision(reason) }
        if case .add = commentMerge(form.document.foremanComments, stored: existing.comments) {
            return .updated(stored.id, from: stored.state)
        }
        return existing.sameContent ? .unchanged(stored.id) : .updated(stored.id, from: stored.state)
    }

    /// The live form with the incoming form's owner and name, and whether it holds the same.
    private struct Existing {
        let record: FormRecord
        let comments: [ForemanComment]
        let media: [MediaFile]
        let sameContent: Bool

        static func fetch(_ form: LoadedForm, in db: any StoreDatabase) throws -> Existing? {
            guard let row = try db.row(literal: """
                SELECT \(FormRecord.columns) FROM forms
                WHERE owner = \(form.owner) AND name = \(form.document.name) AND trashed_at IS NULL
                """) else { return nil }
            let stored = try FormRecord(row: row)
            let (comments, media) = try FormStore.commentsAndMedia(formId: stored.id, in: db)
            let storedDocument = try stored.document(foremanComments: comments)
            let same = storedDocument.sameContent(as: form.document) && stored.state == form.state
                && Set(media) == Set(form.mediaFiles)
            return Existing(record: stored, comments: comments, media: media, sameContent: same)
        }
    }

    /// Why an incoming form with other content may not replace the stored one; nil when it may.
    private static func collisionReason(stored: FormRecord, incoming: LoadedForm) -> ImportIssue.Reason? {
        let document = incoming.document
        let kept = "the store's copy (form \(stored.id)) was kept"
        if stored.created.date != document.created.date {
            return ImportIssue.Reason(pieces: ["\(stored.owner) already has another form named '\(stored.name)' in the store "
                                               + "(created ", ", this one ", "); \(kept)"],
                                      times: [stored.created, document.created])
        }
        if document.modified.date <= stored.modified.date {
            return ImportIssue.Reason(pieces: ["the store holds a different save of this form that is as new or newer (store ",
                                               ", tree ", "); \(kept)"],
                                      times: [stored.modified, document.modified])
        }
        switch (stored.state, incoming.state) {
        case (.incomplete, .incomplete), (.incomplete, .completed), (.completed, .completed):
            return nil
        default:
            return ImportIssue.Reason(pieces: ["the store's copy is \(stored.state) and the tree's is \(incoming.state); \(kept)"],
                                      times: [])
        }
    }

    private static func insert(_ form: LoadedForm, actor: String, at now: Double, in db: any StoreDatabase) throws -> Int64 {
        let document = form.document
        let id = try db.insert(literal: """
            INSERT INTO forms (owner, name, template, template_id, state, created, created_utc, modified, modified_utc,
                               questions, extra)
            VALUES (\(form.owner), \(document.name), \(document.template), \(document.templateId), \(form.state.rawValue),
                    \(document.created.text), \(document.created.date.timeIntervalSince1970), \(document.modified.text),
                    \(document.modified.date.timeIntervalSince1970), \(JSONWriter.compact(document.questionsJSON)),
                    \(extraJSON(document))) RETURNING id
            """)
        // The media, the comment and the audit row need only the id: batched (``Writes``).
        var writes = Writes()
        writes.append(media: form.media, formId: id)
        if let text = document.foremanComments, !text.isEmpty {
            writes.append(addingComment(text, formId: id, at: now))
        }
        var after = FormRecord.summary(owner: form.owner, name: document.name, state: form.state, version: 1).objectValue
        after["modified"] = .string(document.modified.text)
        after["media"] = .integer(form.media.count)
        writes.append(Audit.recording(at: now, actor: actor, command: "import.insert", formId: id,
                                      object: "form \(id) \(form.owner)/\(document.name)", before: nil, after: .object(after),
                                      note: "from \(form.path)"))
        try writes.run(in: db)
        return id
    }

    private static func inserting(_ item: LoadedMedia, formId: Int64) -> StoreStatement {
        StoreStatement(literal: """
            INSERT INTO media (form_id, file_name, question, number, ext, size, sha256, data)
            VALUES (\(formId), \(item.file.fileName), \(item.file.question), \(item.file.number), \(item.file.ext),
                    \(item.file.size), \(item.file.sha256), \(item.data))
            """)
    }

    enum CommentMerge: Equatable { case nothing, add(String), differs }

    /// What form.json's `foremanComments` has beyond the stored comments: nothing, the rest to
    /// add, or text that differs from them (the store's are kept).
    static func commentMerge(_ text: String?, stored: [ForemanComment]) -> CommentMerge {
        guard let text, !text.isEmpty else { return .nothing }
        let joined = stored.map(\.text).joined(separator: "\n")
        if text == joined { return .nothing }
        if stored.isEmpty { return .add(text) }
        if text.hasPrefix(joined + "\n") { return .add(String(text.dropFirst(joined.count + 1))) }
        return .differs
    }

    private static func addingComment(_ text: String, formId: Int64, at now: Double) -> StoreStatement {
        StoreStatement(literal: """
            INSERT INTO foreman_comments (form_id, author, at, text) VALUES (\(formId), \(importedCommentAuthor), \(now), \(text))
            """)
    }

    private static func extraJSON(_ document: FormDocument) -> String? {
        document.extra.isEmpty ? nil : JSONWriter.compact(.object(document.extra))
    }
}

extension JSONValue {
    /// The object's entries, or an empty object for any other value.
    var objectValue: JSONObject {
        if case .object(let object) = self { return object }
        return JSONObject()
    }
}
