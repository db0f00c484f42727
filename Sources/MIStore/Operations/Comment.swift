import Foundation

extension FormStore {
    /// Adds a foreman's general comment to a completed form (the device's "Add comments").
    ///
    /// Only `completed` forms take comments: an incomplete form is still the technician's, and a
    /// submitted one has been uploaded, so a comment could no longer travel with it. Several comments
    /// may be added; none is ever edited away. On export they are joined with newlines into
    /// `foremanComments`. The form's version goes up by one; audited.
    ///
    /// - Throws: `.notFound`; `.invalidState` unless completed; `.invalidInput` for an empty text or
    ///   author; `.conflict` for a stale `expectedVersion`; `.busy`.
    @discardableResult
    public func comment(_ ref: FormReference, text: String, author: String, note: String? = nil,
                        expectedVersion: Int? = nil) throws -> ForemanComment {
        let author = try Validate.name(author, what: "author")
        guard !text.allSatisfy(\.isWhitespace) else {
            throw StoreError(.invalidInput, "The comment text must not be empty.")
        }
        let comment: ForemanComment = try write { db in
            let form = try formQuery().find(ref, in: db)
            try form.check(expectedVersion: expectedVersion)
            guard form.state == .completed else {
                let why = form.state == .incomplete
                    ? "the technician has not completed it yet"
                    : "it has been submitted already"
                throw StoreError(.invalidState, "Form \(form.id) '\(form.name)' of \(form.owner) is \(form.state): "
                    + "\(why). Only completed forms take foreman comments.")
            }
            let now = nowSeconds()
            // The comment and the version go in one batch (on PostgreSQL one round trip for both);
            // the audit row names the comment's id, so it waits for it.
            let results = try db.batch([
                StoreStatement(literal: """
                    INSERT INTO foreman_comments (form_id, author, at, text) VALUES (\(form.id), \(author), \(now), \(text)) RETURNING id
                    """),
                StoreStatement(literal: "UPDATE forms SET version = version + 1, \(FormRecord.touching(now)) WHERE id = \(form.id)"),
            ])
            let commentId = try results[0].insertedId()
            // Nothing waits for the audit row: on PostgreSQL it goes with the COMMIT.
            try db.sendLater([try auditing(at: now, actor: author, command: "comment", formId: form.id, object: form.label,
                                           before: nil,
                                           after: .object(JSONObject([("comment", .integer(Int(commentId))), ("text", .string(text)),
                                                                      ("version", .integer(form.version + 1))])),
                                           note: note)])
            return ForemanComment(id: commentId, formId: form.id, author: author, at: Date(timeIntervalSince1970: now), text: text)
        }
        logger.info("form commented", metadata: ["form": "\(comment.formId)", "author": "\(author)"])
        return comment
    }
}
