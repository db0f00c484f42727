import ArgumentParser
import MIDirectory

/// `users [PATTERN] [--role ROLE]`: the directory's users, streamed page by page.
public struct UsersCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List users from the directory.",
        discussion: """
            PATTERN is a glob on the user id or the name: * matches any run of characters, \
            ? one character, \\ makes the next character literal. Matching ignores case.

            Examples:
              users
              users 'j*'
              users --role technician
              users '*Ångström*'
              users --team 'Kolonne Nord' --role technician
              users --role technician --state

            With --state, a column says which accounts the directory keeps locked or \
            disabled (userAccountControl, nsAccountLock, pwdAccountLockedTime): they cannot \
            log in and receive no forms.
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("Glob on user id or name.", valueName: "pattern"))
    public var pattern: String?

    @Option(help: "Only users holding this role (foreman, technician, support).")
    public var role: Role?

    @Option(help: ArgumentHelp("Only the members of this crew (see 'teams').", valueName: "team"))
    public var team: String?

    @Flag(help: "Add a column with the account's state in the directory (locked, disabled).")
    public var state = false

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        // At a narrow terminal the mail goes first, then long names are cut: one line a user.
        output.beginRows([Column("uid"), Column("name", fit: .cut), Column("mail", fit: .leftOut), Column("roles")]
                         + (state ? [Column("state")] : []))
        func show(_ user: DirectoryUser) throws {
            try session.checkpointRow()
            var row: [Value] = [.string(user.uid), .string(user.name), user.mail.map(Value.string) ?? .null,
                                .list(user.roles.map { .string($0.rawValue) })]
            if state { row.append(user.accountState.map { .string($0.summary) } ?? .null) }
            output.row(row)
        }
        if let team {
            // A crew's members, each looked up (a crew is tens of people, not the directory).
            let glob = pattern.map(Glob.init)
            for uid in try session.crewMemberIDs(of: session.visibleCrew(team)) {
                guard let user = try session.directory.user(uid: uid) else { continue }
                if let role, !user.has(role) { continue }
                if let glob, !glob.matches(user.uid), !glob.matches(user.name) { continue }
                try show(user)
            }
        } else {
            try session.directory.forEachUser(matching: pattern.map(Glob.init), role: role, accountStates: state, show)
        }
        output.endRows()
    }
}

extension Role: ExpressibleByArgument {}
