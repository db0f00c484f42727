import ArgumentParser
import MIDirectory

/// `whoami`: the logged-in user as the directory knows them.
public struct WhoamiCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show who you are logged in as: user id, DN and roles.",
        discussion: "Example:\n  whoami\n  miadmin --format json -c whoami")
    public static let roles: Set<Role> = Set(Role.allCases)

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let user = session.user
        output.record([Column("uid"), Column("dn"), Column("name"), Column("roles")],
                      [.string(user.uid), .string(user.dn), .string(user.name),
                       .list(user.roles.map { .string($0.rawValue) })])
    }
}
