/// What ``FormStore/importTree(at:actor:)`` did. Importing the same tree twice gives a report
/// whose second run has only ``unchanged`` forms and ``noticesAlreadyPresent`` notices.
public struct ImportReport: Sendable {
    /// Forms new to the store.
    public internal(set) var inserted: [ImportedForm] = []
    /// Forms the tree held a newer save of (same owner, name and `created`, later `modified`).
    public internal(set) var updated: [ImportedForm] = []
    /// Forms already in the store with identical content and media.
    public internal(set) var unchanged = 0
    /// Forms whose owner/name the store already holds with other content; the store copy was kept.
    public internal(set) var collisions: [ImportIssue] = []
    /// Folders and files that could not be imported (bad form.json, unreadable media, ...).
    /// A form with an error is not imported at all; every other form is.
    public internal(set) var errors: [ImportIssue] = []
    /// Imported, but worth a look: rule violations, ignored hidden files.
    public internal(set) var warnings: [ImportIssue] = []
    /// Notices added from `Error/<uid>` files.
    public internal(set) var noticesAdded = 0
    /// Lines of `Error/<uid>` files the store already had as notices of that user.
    public internal(set) var noticesAlreadyPresent = 0

    /// True when the import changed nothing in the store.
    public var changedNothing: Bool { inserted.isEmpty && updated.isEmpty && noticesAdded == 0 }
}

/// A form the import inserted or updated.
public struct ImportedForm: Sendable, Hashable {
    public let id: Int64
    public let owner: String
    public let name: String
    public let state: FormState
    /// The form's folder in the tree.
    public let path: String
}

/// One problem of an import, tied to a file or folder.
public struct ImportIssue: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "\(path): \(reason)" }
}
