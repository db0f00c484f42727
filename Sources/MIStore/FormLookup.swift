import Foundation

extension FormStore {
    /// The live form `ref` names, with its media list (no bytes) and foreman comments.
    /// With `owner`, only a form of that owner is found (another's is `.notFound`, as a missing one).
    public func form(_ ref: FormReference, owner: String? = nil) throws -> Form {
        try read { db in try Self.loadForm(formQuery().find(ref, owner: owner, in: db), in: db) }
    }

    /// The bytes of one media file of a form.
    public func mediaData(_ ref: FormReference, fileName: String) throws -> Data {
        try read { db in
            let record = try formQuery().find(ref, in: db)
            guard let data = try db.value(Data.self, literal: "SELECT data FROM media WHERE form_id = \(record.id) AND file_name = \(fileName)") else {
                throw StoreError(.notFound, "Form \(record.id) '\(record.name)' has no media file '\(fileName)'.")
            }
            return data
        }
    }

    static func loadForm(_ record: FormRecord, in db: any StoreDatabase) throws -> Form {
        let (comments, media) = try commentsAndMedia(formId: record.id, in: db)
        return Form(id: record.id, owner: record.owner, state: record.state, version: record.version,
                    document: try record.document(foremanComments: comments),
                    media: media, foremanComments: comments)
    }

    /// A form's foreman comments and media list: both need only its id, so they are read in one
    /// batch (on PostgreSQL one round trip).
    static func commentsAndMedia(formId: Int64, in db: any StoreDatabase) throws
        -> (comments: [ForemanComment], media: [MediaFile]) {
        let lists = try db.batch([foremanCommentsQuery(formId: formId), mediaQuery(formId: formId)])
        return (foremanComments(lists[0]), mediaFiles(lists[1]))
    }

    static func media(formId: Int64, in db: any StoreDatabase) throws -> [MediaFile] {
        mediaFiles(try db.rows(mediaQuery(formId: formId)))
    }

    /// The query for a form's media list (no bytes), for a batch; ``mediaFiles(_:)`` reads its rows.
    private static func mediaQuery(formId: Int64) -> StoreStatement {
        StoreStatement(literal: """
            SELECT file_name, question, number, ext, size, sha256 FROM media WHERE form_id = \(formId) ORDER BY question, number, file_name
            """)
    }

    private static func mediaFiles(_ rows: [StoreRow]) -> [MediaFile] {
        rows.map { row in
            MediaFile(fileName: row["file_name"], question: row["question"], number: row["number"], ext: row["ext"],
                      size: row["size"], sha256: row["sha256"])
        }
    }

    static func foremanComments(formId: Int64, in db: any StoreDatabase) throws -> [ForemanComment] {
        foremanComments(try db.rows(foremanCommentsQuery(formId: formId)))
    }

    /// The query for a form's foreman comments, for a batch; ``foremanComments(_:)`` reads its rows.
    private static func foremanCommentsQuery(formId: Int64) -> StoreStatement {
        StoreStatement(literal: "SELECT id, form_id, author, at, text FROM foreman_comments WHERE form_id = \(formId) ORDER BY id")
    }

    private static func foremanComments(_ rows: [StoreRow]) -> [ForemanComment] {
        rows.map { row in
            ForemanComment(id: row["id"], formId: row["form_id"], author: row["author"],
                           at: Date(timeIntervalSince1970: row["at"]), text: row["text"])
        }
    }
}
