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

    public init(owner: String? = nil, state: FormState? = nil, template: String? = nil, olderThanDays: Int? = nil) {
        self.owner = owner
        self.state = state
        self.template = template
        self.olderThanDays = olderThanDays
    }
}
