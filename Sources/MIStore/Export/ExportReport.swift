/// What ``FormStore/exportTree(to:)`` wrote.
public struct ExportReport: Sendable {
    /// The `Documents/` folder written.
    public internal(set) var path: String
    /// Form folders written under `<uid>/`.
    public internal(set) var incompleteForms = 0
    /// Form folders written under `Completed MIs/<uid>/`.
    public internal(set) var completedForms = 0
    public internal(set) var mediaFiles = 0
    /// Submitted forms: uploaded, so the device layout has no folder for them; not written.
    public internal(set) var submittedSkipped = 0
    /// `Error/<uid>` files written (one per user with unread notices).
    public internal(set) var noticeFiles = 0
    /// Unread notices written, one line each.
    public internal(set) var notices = 0
    /// Forms (and notices) that could not be written, with why: an owner, name or media file
    /// name that breaks the import's rules and could make the export write outside its folder.
    public internal(set) var skipped: [ExportIssue] = []

    init(path: String) { self.path = path }
}

/// A form (or a user's notices, `formId` nil) the export could not write.
public struct ExportIssue: Sendable, Hashable, CustomStringConvertible {
    public let formId: Int64?
    public let reason: String

    public var description: String { formId.map { "form \($0): \(reason)" } ?? reason }
}
