import ArgumentParser
import MIDirectory

/// `help [COMMAND]`: the commands the user may run, or one command's usage and examples —
/// generated from the same definitions that parse the commands.
public struct HelpCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "help",
        abstract: "List the commands you may run, or show one command's usage and examples.",
        discussion: """
            At a terminal narrower than the list, each command takes one line: the roles are left \
            out and a long description is cut short with '…'; 'help COMMAND' shows all of it, \
            and 'help --wide' every column.

            Examples:
              help
              help move
              help --wide
              users --help
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Argument(help: ArgumentHelp("The command to explain (with a subcommand: 'policy set').", valueName: "command"))
    public var command: [String] = []

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        if let name = command.first {
            if let typo = CommandRegistry.unknownSubcommandMessage(command) { throw CommandError.failed(typo) }
            guard let text = CommandRegistry.helpText(for: command)
                    ?? (command.count == 1 ? CommandRegistry.builtinHelp(name) : nil) else {
                throw CommandError.failed(CommandRegistry.unknownCommandMessage(name))
            }
            output.message(text)
            return
        }
        output.beginRows([Column("command"), Column("description", fit: .cut), Column("roles", fit: .leftOut)])
        // A technician's list was all 27 words, most of which they may not run.
        for type in CommandRegistry.commands where !type.roles.isDisjoint(with: session.user.roles) {
            output.row([.string(type.name), .string(type.configuration.abstract),
                        .list(type.roles.sorted().map { .string($0.rawValue) })])
        }
        for builtin in CommandRegistry.builtins {
            output.row([.string(builtin.name), .string(builtin.abstract), .list([])])
        }
        output.endRows()
    }
}
