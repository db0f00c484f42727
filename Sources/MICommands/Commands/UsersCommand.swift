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
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("Glob on user id or name.", valueName: "pattern"))
    public var pattern: String?

    @Option(help: "Only users holding this role (foreman, technician, support).")
    public var role: Role?

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        output.beginRows([Column("uid"), Column("name"), Column("mail"), Column("roles")])
        try session.directory.forEachUser(matching: pattern.map(Glob.init), role: role) { user in
            try session.checkpointRow()
            output.row([.string(user.uid), .string(user.name), user.mail.map(Value.string) ?? .null,
                        .list(user.roles.map { .string($0.rawValue) })])
        }
        output.endRows()
    }
}

extension Role: ExpressibleByArgument {}
