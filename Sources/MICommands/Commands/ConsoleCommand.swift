import ArgumentParser
import MIDirectory

/// A command the console runs: parsed by swift-argument-parser from a line (the prompt, a
/// script, `-c`), then run against the session. Each command is one type in one file.
///
/// `help`, completion and the permission matrix (docs/commands.md) all come from these types.
public protocol ConsoleCommand: ParsableCommand {
    /// Roles allowed to run the command.
    static var roles: Set<Role> { get }
    func run(in session: Session, output: OutputSink) throws
}

extension ConsoleCommand {
    /// The word typed to run it.
    public static var name: String { configuration.commandName ?? String(describing: self).lowercased() }
}
