import Foundation

/// The form whose media ``FormStore/forEachMediaFile(of:fileName:owner:_:)`` hands out.
public struct MediaSource: Sendable, Hashable {
    public let formId: Int64
    public let owner: String
    public let name: String
    public let state: FormState
    public let trashed: Bool
}

extension FormStore {
    /// Calls `body` with each media file of the form `ref` names (or only `fileName`), with its
    /// bytes, one file at a time, in question and number order. Unlike ``form(_:)`` this also
    /// finds a form in the trash: by id, or by `owner/name` when no live form has that name.
    ///
    /// With `owner`, a form of anyone else is not found, with the very message of a missing one
    /// (a technician's view: `Session.visibleOwner`). Returns the form.
    ///
    /// - Throws: `.notFound` for no such form, or no media file `fileName` on it.
    @discardableResult
    public func forEachMediaFile(of ref: FormReference, fileName: String? = nil, owner: String? = nil,
                                 _ body: (MediaSource, MediaFile, Data) throws -> Void) throws -> MediaSource {
        try read { db in
            let query = formQuery()
            try query.checkOwner(of: ref)
            let record: FormRecord
            let trashed: Bool
            switch ref {
            case .id(let id):
                guard let row = try db.row(literal: """
                    SELECT \(FormRecord.columns), forms.trashed_at FROM forms WHERE id = \(id) AND (\(query.reachCondition))
                    """) else {
                    throw StoreError.noSuchForm(ref)
                }
                record = try FormRecord(row: row)
                trashed = row["trashed_at"] as Double? != nil
            case .path:
                if let live = try? query.find(ref, in: db) {
                    record = live
                    trashed = false
                } else {
                    do {
                        record = try query.findTrashed(ref, in: db)
                    } catch let error as StoreError where error.kind == .notFound {
                        // Neither live nor in the trash: the miss a lookup of a live form gives.
                        throw StoreError.noSuchForm(ref)
                    }
                    trashed = true
                }
            }
            let source = MediaSource(formId: record.id, owner: record.owner, name: record.name, state: record.state,
                                     trashed: trashed)
            // Another's form answers as a missing one.
            if let owner, record.owner != owner { throw StoreError.noSuchForm(ref) }
            let files = try Self.media(formId: record.id, in: db).filter { fileName == nil || $0.fileName == fileName }
            if let fileName, files.isEmpty {
                throw StoreError(.notFound, "Form \(record.id) '\(record.name)' has no media file '\(fileName)'.")
            }
            for file in files {
                guard let data = try db.value(Data.self, literal: """
                    SELECT data FROM media WHERE form_id = \(record.id) AND file_name = \(file.fileName)
                    """) else { continue }
                try body(source, file, data)
            }
            return source
        }
    }
}
