import Foundation

extension MediaFile {
    /// The media type sent with the file, from its extension (the device writes jpg, png, mp4, ...).
    public var contentType: String {
        switch ext.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "heic": "image/heic"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "m4a": "audio/mp4"
        case "pdf": "application/pdf"
        default: "application/octet-stream"
        }
    }
}

extension FormStore {
    /// The review of the form a delivery carries, as the form is now; nil when the form is no
    /// longer the submitted version the delivery was queued for (reopened, changed, purged),
    /// with the reason.
    ///
    /// Not limited by ``ownerScope``: `deliver` sends the whole queue whoever runs it (a timer
    /// under one foreman's account must not leave the other crews' forms undelivered), and what
    /// it reads goes to the office, not to the console.
    public func deliveryReview(_ delivery: Delivery) throws -> Result<FormReview, StoreError> {
        let form: Form
        do {
            form = try read { db in try Self.loadForm(try FormQuery.wholeStore.find(.id(delivery.formId), in: db), in: db) }
        } catch let error as StoreError where error.kind == .notFound {
            return .failure(StoreError(.notFound, "form \(delivery.formId) no longer exists (purged?)"))
        }
        guard form.version == delivery.formVersion, form.state == .submitted else {
            return .failure(StoreError(.invalidState, "the form was reopened; dismiss or resubmit (form \(delivery.formId) "
                                       + "is version \(form.version), \(form.state), and this delivery is of version \(delivery.formVersion))"))
        }
        return .success(try Self.review(of: form))
    }

    /// Runs `body` with a reader of the form's media files, inside one read transaction (one
    /// snapshot): a file is sent piece by piece as `body` asks, never held whole.
    public func withMediaReader<T>(formId: Int64, _ body: (MediaReader) throws -> T) throws -> T {
        try read { db in try body(MediaReader(db: db, formId: formId)) }
    }
}

/// Pieces of one form's media files (``FormStore/withMediaReader(formId:_:)``); valid only
/// inside that call. Each file keeps one open reader, so reading it in order costs one pass.
public final class MediaReader {
    private let db: any StoreDatabase
    private let formId: Int64
    private var readers: [String: any BlobReader] = [:]

    init(db: any StoreDatabase, formId: Int64) {
        self.db = db
        self.formId = formId
    }

    /// Up to `count` bytes of `fileName` from `offset`; empty past the end.
    ///
    /// - Throws: `.notFound` when the form has no such file.
    public func bytes(_ fileName: String, offset: Int, count: Int) throws -> [UInt8] {
        if let reader = readers[fileName] { return try reader.piece(offset: offset, count: count) }
        guard let id = try db.value(Int64.self, literal: "SELECT id FROM media WHERE form_id = \(formId) AND file_name = \(fileName)") else {
            throw StoreError(.notFound, "Form \(formId) has no media file '\(fileName)' any more.")
        }
        // One open file at a time: the parts are sent in order.
        readers.removeAll()
        let reader = try db.blobReader(table: "media", column: "data", id: id)
        readers[fileName] = reader
        return try reader.piece(offset: offset, count: count)
    }
}
