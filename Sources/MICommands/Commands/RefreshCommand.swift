import ArgumentParser
import MIDirectory

/// `refresh`: reads the session's crews from the directory again now, rather than when they
/// are `teams.refreshSeconds` old, and says what changed.
public struct RefreshCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Read your crews from the directory again now.",
        discussion: """
            A session reads its crews when it starts and again before a command once they are \
            teams.refreshSeconds old (default 60): a technician moved to another crew in the \
            directory leaves every open session within that time. refresh reads them at once \
            and says what changed ('crews changed: u00010 left Kolonne Nord'), or that nothing did.

            Example:
              refresh
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        guard session.directory.crewSettings != nil else {
            output.message("this site keeps no crews; nothing to read again")
            return
        }
        // Read at least once, so that the comparison has a before.
        let before = try session.crewReach()
        let changes = try session.refreshCrews(force: true)
        if changes.isEmpty {
            output.message("crews unchanged: \(before.summary)")
        } else {
            output.message("crews changed: " + changes.joined(separator: ", "))
        }
    }
}
