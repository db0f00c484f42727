import ArgumentParser
import MIDirectory
import MIStore

/// `workload`: per technician, the forms still open and what comes next, for the foreman's
/// morning look (technicians see their own row).
public struct WorkloadCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "workload",
        abstract: "Per technician: forms incomplete and completed, the oldest open one, the next expiry.",
        discussion: """
            One row per technician of the directory (those --owner covers), those with no form \
            included, plus any other owner of live forms (a technician who left still holds \
            work). incomplete and completed count live forms; oldest is when the oldest \
            incomplete form was created; nextExpiry is when the first incomplete form expires \
            under the policy in force ('policy show'); a nextExpiry already past is an overdue \
            form ('forms --sort expires' lists them). Technicians see their own row; where the site \
            keeps crews, a foreman sees his crews' technicians, and the crew column names the \
            crews (of those you see) each one works in. --nonzero leaves out technicians with no \
            incomplete or completed form.

            Examples:
              workload
              workload --owner 'u0000*'
              workload --team 'Kolonne Nord'
              workload --format csv
              workload --nonzero
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Option(help: ArgumentHelp("Only this technician (a user id, or a glob like 'u0000*').", valueName: "technician"))
    public var owner: String?
    @Option(help: ArgumentHelp("Only this crew's technicians (see 'teams').", valueName: "team"))
    public var team: String?
    @Flag(help: "Only technicians with forms to do or to review (incomplete or completed).")
    public var nonzero = false

    public init() {}

    public static let columns = [Column("uid"), Column("name"), Column("incomplete"), Column("completed"),
                                 Column("oldest"), Column("nextExpiry")]

    public static func values(_ row: TechnicianWorkload) -> [Value] {
        [.string(row.uid), .optional(row.name), .int(Int64(row.workload.incomplete)), .int(Int64(row.workload.completed)),
         row.workload.oldestIncomplete.map(Value.time) ?? .null, row.workload.nextExpiry.map(Value.time) ?? .null]
    }

    public func run(in session: Session, output: OutputSink) throws {
        let selection = try ListedOwners(asked: owner, in: session)
        let glob = selection.glob
        // A glob is matched here (as `forms --owner` does); a single owner filters in the store.
        var filter = FormFilter(owner: glob == nil ? selection.owner : nil)
        if let team { filter.owners = Set(try session.directory.memberIDs(of: session.visibleCrew(team))) }
        let rows = try session.workloads(of: try selection.technicians(session.directory, among: filter.owners), filter,
                                         ownerMatches: { glob?.matches($0) ?? true })
        let crews = try Self.crewsOfMembers(in: session)
        output.beginRows(Self.columns + [Column("crew")])
        for row in rows where !nonzero || row.workload.incomplete + row.workload.completed > 0 {
            try session.checkpointRow()
            output.row(Self.values(row) + [crews.map { .string(($0[row.uid.lowercased()] ?? []).joined(separator: ", ")) } ?? .null])
        }
        output.endRows()
        try session.requireKnownUser(owner, foundNothing: rows.isEmpty)
    }

    /// Each technician's crews among those the user sees (lower-cased uid -> crew names, in
    /// order); nil where the site keeps no crews.
    static func crewsOfMembers(in session: Session) throws -> [String: [String]]? {
        guard session.directory.crewSettings != nil else { return nil }
        var crews: [String: [String]] = [:]
        try session.forEachVisibleCrew { crew in
            for uid in try session.directory.memberIDs(of: crew) { crews[uid.lowercased(), default: []].append(crew.name) }
        }
        return crews.mapValues { $0.sorted() }
    }
}
