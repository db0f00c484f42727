import MIDirectory

/// What commands ask of the directory once the user has logged in: look a user up, list users,
/// complete user ids. The LDAP ``Directory`` is the real one (the launch layer opens it and logs
/// the user in); the unit tests of MICommands use a fake with a few users.
///
/// Logging in is not here: a ``Session`` starts with the user already authenticated.
public protocol DirectoryService: AnyObject {
    /// The user `uid` with their roles, or nil when the directory has none.
    func user(uid: String) throws -> DirectoryUser?

    /// Streams users whose id or name matches `pattern` and who hold `role` (nil: any); their
    /// ``DirectoryUser/accountState`` only with `accountStates` (nil otherwise).
    func forEachUser(matching pattern: Glob?, role: Role?, accountStates: Bool,
                     _ body: (DirectoryUser) throws -> Void) throws

    /// At most `limit` user ids starting with `prefix`, sorted (Tab completion).
    func userIDs(prefix: String, role: Role?, limit: Int) throws -> [String]

    // MARK: Crews (``CrewSettings``)
    /// Where crews come from; nil when the site keeps none.
    var crewSettings: CrewSettings? { get }
    /// What a foreman acts for: every crew (`teams.allTeamsGroup`), or the crews he leads and
    /// their members, read at once; without `withMembers` the members may be left out where
    /// they cost more than the crews (``LedCrews/membersRead``).
    func ledCrews(of user: DirectoryUser, withMembers: Bool) throws -> LedCrews
    /// The crews `user` works in.
    func crews(containing user: DirectoryUser) throws -> [Crew]
    /// Every crew, by name.
    func forEachCrew(_ body: (Crew) throws -> Void) throws
    /// The crew called `name`, or nil.
    func crew(named name: String) throws -> Crew?
    /// The user ids of a crew's members (foremen included).
    func memberIDs(of crew: Crew) throws -> [String]
}

extension DirectoryService {
    /// Users without their account states, as listings that do not show them read them.
    public func forEachUser(matching pattern: Glob?, role: Role?, _ body: (DirectoryUser) throws -> Void) throws {
        try forEachUser(matching: pattern, role: role, accountStates: false, body)
    }

    public func userIDs(prefix: String, role: Role? = nil) throws -> [String] {
        try userIDs(prefix: prefix, role: role, limit: 200)
    }
}

extension Directory: DirectoryService {
    public var crewSettings: CrewSettings? { settings.teams }
}
