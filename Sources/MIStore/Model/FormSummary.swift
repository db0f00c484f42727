import Foundation

/// One line of a form listing (``FormStore/forEachForm(_:_:)``).
public struct FormSummary: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let owner: String
    public let name: String
    public let state: FormState
    public let template: String
    public let created: Timestamp
    public let modified: Timestamp
    public let mediaCount: Int
    public let version: Int
    /// The last restart of the form's expiry clock (move, restore, reopen), if any.
    public var expiryResetAt: Date? = nil

    /// When this form expires under `days` days of expiry (``Expiry``); nil unless the form is
    /// incomplete (only incomplete forms expire). With its owner's policy:
    /// ``OwnerPolicies/expires(_:)``.
    public func expires(afterDays days: Int) -> Date? {
        guard state == .incomplete else { return nil }
        return Expiry.date(days, after: clockStart)
    }

    /// Where the form's expiry clock starts: `created`, or its last restart when later.
    public var clockStart: Date { Expiry.clockStart(created: created.date, restartedAt: expiryResetAt) }
}

/// Which live forms a listing shows; `nil` fields do not filter.
public struct FormFilter: Sendable, Hashable {
    public var owner: String?
    public var state: FormState?
    /// The template name (`template` in form.json).
    public var template: String?
    /// Only forms created more than this many days before the store clock's now.
    public var olderThanDays: Int?
    /// Only forms of these owners (a crew's technicians: `forms --team`); nil: anyone's.
    public var owners: Set<String>?
    /// Only forms changed (`modified`: the device's saves and every change the console makes) at
    /// or after this instant.
    public var modifiedSince: Date?
    /// Only forms whose name matches this glob: `*` any run of characters, `?` one character,
    /// `\` makes the next one literal. ASCII letters match either case (both engines compare
    /// other characters as they are).
    public var namePattern: String?
    /// Only forms with this text (ignoring case) in an answer or a question's comment
    /// (``Question/searchableTexts``).
    public var answerText: String?

    public init(owner: String? = nil, state: FormState? = nil, template: String? = nil, olderThanDays: Int? = nil,
                modifiedSince: Date? = nil, namePattern: String? = nil, answerText: String? = nil) {
        self.owner = owner
        self.state = state
        self.template = template
        self.olderThanDays = olderThanDays
        self.modifiedSince = modifiedSince
        self.namePattern = namePattern
        self.answerText = answerText
    }
}
