/// Where a site keeps its crews (the config's `teams` object, docs/configuration.md). Without it
/// there are no crews: every foreman acts on every technician's forms, as before crews existed.
public struct CrewSettings: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable {
        /// Every group entry under ``CrewSettings/base`` is a crew, named by its `cn`; its members
        /// who are foremen lead it, those who are technicians work in it.
        case groups
        /// A foreman's crew is the users whose ``CrewSettings/managerAttribute`` names the
        /// foreman's DN (Active Directory fills `directReports` back); named after his user id.
        case manager
    }

    public var source: Source
    /// `teams.base` (groups): the entry the crew groups are under, such as `ou=Kolonnen,dc=example,dc=org`.
    public var base: String?
    /// `teams.allTeamsGroup`: its members act as foremen of every crew (site leads, a nightly
    /// service account).
    public var allCrewsGroup: String?
    /// `teams.managerAttribute` (manager): the attribute naming a technician's foreman.
    public var managerAttribute: String
    /// `teams.refreshSeconds`: a session reads its crews again before a command once they are
    /// this old, so a technician taken out of a crew is out of every open session within it.
    public var refreshSeconds: Int

    /// The default of ``refreshSeconds``.
    public static let defaultRefreshSeconds = 60

    public init(source: Source, base: String? = nil, allCrewsGroup: String? = nil, managerAttribute: String = "manager",
                refreshSeconds: Int = CrewSettings.defaultRefreshSeconds) {
        self.source = source
        self.base = base
        self.allCrewsGroup = allCrewsGroup
        self.managerAttribute = managerAttribute
        self.refreshSeconds = refreshSeconds
    }
}
