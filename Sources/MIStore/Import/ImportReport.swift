import Foundation

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
    /// Why, with the times it names as the device wrote them.
    public let reason: String
    /// The reason's text around the times it names (one piece more than times), so that the
    /// console can write those times as it writes every other: in the site's zone.
    private let pieces: [String]
    public let times: [Date]

    public init(path: String, reason: String) {
        self.init(path: path, Reason(pieces: [reason], times: []))
    }

    init(path: String, _ reason: Reason) {
        self.path = path
        pieces = reason.pieces
        times = reason.times.map(\.date)
        self.reason = Self.joined(reason.pieces, reason.times.map(\.text))
    }

    /// A reason that names times: `pieces` around each of `times`.
    struct Reason {
        let pieces: [String]
        let times: [Timestamp]
    }

    public var description: String { "\(path): \(reason)" }

    /// The description with each time the reason names as `write` writes it.
    public func description(writingTimes write: (Date) -> String) -> String {
        "\(path): " + Self.joined(pieces, times.map(write))
    }

    private static func joined(_ pieces: [String], _ times: [String]) -> String {
        var text = pieces[0]
        for (time, piece) in zip(times, pieces.dropFirst()) { text += time + piece }
        return text
    }
}
