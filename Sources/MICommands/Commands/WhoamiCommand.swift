import ArgumentParser
import MIDirectory

/// `whoami`: the logged-in user as the directory knows them.
public struct WhoamiCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show who you are logged in as: user id, DN, roles, how you logged in (password or kerberos) and crews.",
        discussion: "Example:\n  whoami\n  miadmin --format json -c whoami")
    public static let roles: Set<Role> = Set(Role.allCases)

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let user = session.user
        var columns = [Column("uid"), Column("dn"), Column("name"), Column("roles"), Column("auth")]
        var values: [Value] = [.string(user.uid), .string(user.dn), .string(user.name),
                               .list(user.roles.map { .string($0.rawValue) }), .string(session.loginMethod.rawValue)]
        if session.directory.crewSettings != nil {
            // Whose forms the session acts on: the crews led, or every crew and why.
            columns.append(Column("crews"))
            values.append(.string(try session.crewsLed().summary))
        }
        output.record(columns, values)
    }
}
