import Foundation

/// A form as the store holds it: the `form.json` content plus who owns it, its state and its
/// history bookkeeping. Media bytes are not loaded; see ``FormStore/mediaData(_:fileName:)``.
public struct Form: Sendable, Equatable, Identifiable {
    /// Stable id; never reused.
    public let id: Int64
    /// The technician's directory uid.
    public let owner: String
    public let state: FormState
    /// Incremented by every change; pass it back as `expectedVersion` to detect concurrent changes.
    public let version: Int
    /// The form content. Its ``FormDocument/foremanComments`` holds ``foremanComments`` joined with newlines.
    public let document: FormDocument
    public let media: [MediaFile]
    /// The foremen's comments, oldest first.
    public let foremanComments: [ForemanComment]

    public var name: String { document.name }
}

/// A media file of a form, `Qid<q>(<n>).<ext>`; the bytes stay in the store.
public struct MediaFile: Sendable, Hashable {
    /// The file name as on the device, e.g. `Qid1(3).mp4`.
    public let fileName: String
    /// 0-based question index.
    public let question: Int
    /// 1-based media number within the question.
    public let number: Int
    /// The extension without the dot; unknown ones (not jpg, png, mp4, ...) are kept as opaque files.
    public let ext: String
    public let size: Int
    /// SHA-256 of the bytes, lowercase hex.
    public let sha256: String

    /// The extensions the field app knows; others are kept but treated as opaque.
    public static let knownExtensions: Set<String> = ["jpg", "jpeg", "png", "heic", "mp4", "mov", "m4a", "caf", "wav"]

    /// Parses `Qid<q>(<n>).<ext>`; nil when `fileName` does not follow the pattern.
    static func parseName(_ fileName: String) -> (question: Int, number: Int, ext: String)? {
        guard fileName.hasPrefix("Qid"), let open = fileName.firstIndex(of: "("),
              let close = fileName[open...].firstIndex(of: ")") else { return nil }
        let questionText = fileName[fileName.index(fileName.startIndex, offsetBy: 3)..<open]
        let numberText = fileName[fileName.index(after: open)..<close]
        let rest = fileName[fileName.index(after: close)...]
        guard rest.hasPrefix("."), rest.count > 1 else { return nil }
        let ext = rest.dropFirst()
        func isDigits(_ text: Substring) -> Bool { !text.isEmpty && text.count <= 9 && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) }
        guard isDigits(questionText), isDigits(numberText),
              ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              let question = Int(questionText), let number = Int(numberText), number >= 1 else { return nil }
        return (question, number, String(ext))
    }
}

/// A foreman's comment on a whole form. Comments are only ever added, never edited away.
public struct ForemanComment: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let formId: Int64
    public let author: String
    public let at: Date
    public let text: String
}
