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

extension Session {
    /// Runs `command` for the logged-in user: first the role check every command passes (the
    /// permission matrix, docs/commands.md), then the command, which applies the finer rules
    /// (``visibleOwner(asked:)``). `name` is the command as typed, with its parent for a nested
    /// one (`policy set`), for the refusal's message. A refused command touches nothing.
    public func run(_ command: any ConsoleCommand, named name: String, output: OutputSink) throws {
        try require(type(of: command).roles, for: name)
        activity = "\(user.uid) \(name)"
        // Crews older than `teams.refreshSeconds` are read again first; a change is said once.
        if !(command is RefreshCommand) {
            let changes = try refreshCrews()
            if !changes.isEmpty { output.warning("crews changed: " + changes.joined(separator: ", ")) }
        }
        // A session transaction that has only read holds no snapshot while it waits for its
        // next command (a technician's `--atomic` pipe would otherwise stop every checkpoint).
        // Ending a read transaction loses nothing; if it fails the next command reads as before.
        defer { try? openedStore?.administration.endSessionReadSnapshot() }
        try command.run(in: self, output: output)
    }
}
