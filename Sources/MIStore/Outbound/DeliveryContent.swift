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
    public func deliveryReview(_ delivery: Delivery) throws -> Result<FormReview, StoreError> {
        let form: Form
        do {
            form = try self.form(.id(delivery.formId))
        } catch let error as StoreError where error.kind == .notFound {
            return .failure(StoreError(.notFound, "form \(delivery.formId) no longer exists (purged?)"))
        }
        guard form.version == delivery.formVersion, form.state == .submitted else {
            return .failure(StoreError(.invalidState, "form \(delivery.formId) changed after it was queued "
                                       + "(now version \(form.version), \(form.state)); a new submit queues it again"))
        }
        return .success(try Self.review(of: form))
    }

    /// Up to `count` bytes of a media file from `offset`: a file is sent piece by piece, never
    /// held whole (one short read transaction per piece). The bytes are the file's at the time
    /// of the read; media of a submitted form do not change.
    ///
    /// - Throws: `.notFound` when the file is gone.
    public func mediaBytes(formId: Int64, fileName: String, offset: Int, count: Int) throws -> [UInt8] {
        try read { db in
            guard let id = try db.value(Int64.self, "SELECT id FROM media WHERE form_id = ? AND file_name = ?",
                                        [formId, fileName]) else {
                throw StoreError(.notFound, "Form \(formId) has no media file '\(fileName)' any more.")
            }
            return try db.blobPiece(table: "media", column: "data", id: id, offset: offset, count: count)
        }
    }
}
