import ArgumentParser
import Foundation
import MICommands

/// Runs one command line: tokenize with shell-like quoting, parse with the command definitions
/// (the same parser as the shell's `-c`), check the role, run. Throws what the command throws.
final class CommandRunner {
    let session: Session
    let sink: RenderingSink

    init(session: Session, sink: RenderingSink) {
        self.session = session
        self.sink = sink
    }

    /// A line the parser refused, with the parser's own reason.
    struct ParseFailure: Error, CustomStringConvertible {
        let description: String
    }

    func run(words: [String]) throws {
        guard let name = words.first, let root = CommandRegistry.command(named: name) else {
            throw ParseFailure(description: "unknown command '\(words.first ?? "")' (type 'help' for the list)")
        }
        // Parse with the named command's own type: argument-parser then builds one command's
        // argument tree per line instead of every command's (a root over all of them was a
        // quarter of a 10,000-line script's time).
        let arguments = Array(words.dropFirst())
        let parsed: ParsableCommand
        do {
            parsed = try root.parseAsRoot(arguments)
        } catch {
            if root.exitCode(for: error) == .success {
                sink.message(CommandRegistry.helpText(for: words) ?? root.fullMessage(for: error))
                return  // `CMD --help`: the same text as `help CMD`
            }
            throw ParseFailure(description: "\(name): \(root.message(for: error)) (see 'help \(name)')")
        }
        guard let command = parsed as? any ConsoleCommand else {
            // `policy set --help`: for a nested command the parser returns its own help command
            // instead of throwing; show the help of the command the words name.
            if words.contains("--help") || words.contains("-h"), let text = CommandRegistry.helpText(for: words) {
                sink.message(text)
                return
            }
            throw ParseFailure(description: "unknown command '\(name)' (type 'help')")
        }
        let type = Swift.type(of: command)
        // A nested command is named with its parent (`policy set`).
        try session.require(type.roles, for: type.name == name ? name : "\(name) \(type.name)")
        try command.run(in: session, output: sink)
    }
}
