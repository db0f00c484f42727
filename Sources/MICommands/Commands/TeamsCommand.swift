import ArgumentParser
import MIDirectory
import MIStore

/// `teams`: the crews the user may see, and `teams show NAME`: one crew's members
/// and their work.
public struct TeamsCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "teams",
        abstract: "List the crews you may see, with their foremen and forms.",
        discussion: """
            Crews come from the directory (the config's teams object: groups under an OU, or the \
            manager attribute). A foreman sees the crews he leads; support staff and site leads \
            (teams.allTeamsGroup) see every crew. A technician in several crews is counted in each, \
            and a note after the table names them.

            Examples:
              teams
              teams --format csv
              teams show 'Kolonne Nord'
            """,
        subcommands: [TeamsListCommand.self, TeamsShowCommand.self],
        defaultSubcommand: TeamsListCommand.self)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    /// Never run: the parser always picks a subcommand (`list` by default).
    public func run(in session: Session, output: OutputSink) throws {
        try TeamsListCommand().run(in: session, output: output)
    }

    /// Forms of `owners` by state, in scope (the store's ``OwnerScope`` applies as to every listing).
    static func formsByState(_ owners: Set<String>, store: any StoreListing) throws -> [FormState: Int] {
        var filter = FormFilter()
        filter.owners = owners
        var counts: [FormState: Int] = [:]
        for group in try store.countForms(by: .state, filter) {
            if let state = FormState(rawValue: group.value) { counts[state] = group.count }
        }
        return counts
    }

    static let stateColumns = FormState.allCases.map { Column($0.rawValue) }

    static func stateValues(_ counts: [FormState: Int]) -> [Value] {
        FormState.allCases.map { .int(Int64(counts[$0] ?? 0)) }
    }
}

/// `teams [list]`: one row per crew.
public struct TeamsListCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "One row per crew: name, foremen, technicians, forms by state.")
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        guard session.directory.crewSettings != nil else {
            throw CommandError.failed("this site keeps no crews (no teams object in \(session.config.file)); see docs/configuration.md")
        }
        let store = try session.store()
        let roles = try CrewRoles(session: session, everyCrew: try session.crewsLed().isEveryCrew)
        output.beginRows([Column("team"), Column("foremen"), Column("technicians")] + TeamsCommand.stateColumns)
        var crewsOf: [String: [String]] = [:]  // technician -> the listed crews he is in
        try session.forEachVisibleCrew { crew in
            try session.checkpointRow()
            let members = try session.directory.memberIDs(of: crew)
            var foremen: [String] = [], technicians = Set<String>()
            for uid in members {
                let held = try roles.of(uid)
                if held.contains(.foreman) { foremen.append(uid) }
                if held.contains(.technician) { technicians.insert(uid) }
            }
            for uid in technicians { crewsOf[uid, default: []].append(crew.name) }
            let counts = try TeamsCommand.formsByState(technicians, store: store.listing)
            output.row([.string(crew.name), .list(foremen.sorted().map(Value.string)), .int(Int64(technicians.count))]
                       + TeamsCommand.stateValues(counts))
        }
        output.endRows()
        if let note = Self.countedTwice(crewsOf) { output.note(note) }
    }

    /// The rows add up to more than the site has when a technician is in several crews: says
    /// who, and in which ("jdoe is in Kolonne Nord and Kolonne Ost"), or nil.
    static func countedTwice(_ crewsOf: [String: [String]]) -> String? {
        let several = crewsOf.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }
        guard !several.isEmpty else { return nil }
        let who = several.map { uid, crews in
            "\(uid) is in " + (crews.count == 2 ? crews.joined(separator: " and ")
                : crews.dropLast().joined(separator: ", ") + " and " + crews.last!)
        }
        return "counted in each of their crews (technicians and forms): " + who.joined(separator: "; ")
    }
}

/// `teams show NAME`: the crew's members, their roles and their workload (as `workload` has it).
public struct TeamsShowCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "One crew's members: roles, forms incomplete and completed, oldest open form, next expiry.",
        discussion: "Example:\n  teams show 'Kolonne Nord'")
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The crew's name (see 'teams').", valueName: "team"))
    public var name: String

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let crew = try session.visibleCrew(name)
        var members: [DirectoryUser] = []
        for uid in try session.crewMemberIDs(of: crew) {
            if let user = try session.directory.user(uid: uid) { members.append(user) }
        }
        var filter = FormFilter()
        filter.owners = Set(members.map(\.uid))
        let roles = Dictionary(members.map { ($0.uid, $0.roles) }, uniquingKeysWith: { first, _ in first })
        output.beginRows([Column("uid"), Column("name"), Column("roles")] + WorkloadCommand.columns.dropFirst(2))
        for row in try session.workloads(of: members, filter) {
            try session.checkpointRow()
            output.row([.string(row.uid), .optional(row.name), .list((roles[row.uid] ?? []).map { .string($0.rawValue) })]
                       + WorkloadCommand.values(row).dropFirst(2))
        }
        output.endRows()
    }
}

/// The roles of crew members: looked up one by one (cached for the session) for a foreman's
/// few crews; for every crew of a site (support, site leads), the foremen and technicians are
/// listed once each instead of one look-up per member.
struct CrewRoles {
    private let session: Session
    private var sets: [Role: Set<String>]?

    init(session: Session, everyCrew: Bool) throws {
        self.session = session
        guard everyCrew else { return }
        var sets: [Role: Set<String>] = [:]
        for role in [Role.foreman, .technician] {
            var uids = Set<String>()
            try session.directory.forEachUser(matching: nil, role: role) { uids.insert($0.uid.lowercased()) }
            sets[role] = uids
        }
        self.sets = sets
    }

    func of(_ uid: String) throws -> [Role] {
        if let sets { return [Role.foreman, .technician].filter { sets[$0]?.contains(uid.lowercased()) == true } }
        return try session.directory.user(uid: uid)?.roles ?? []
    }
}
