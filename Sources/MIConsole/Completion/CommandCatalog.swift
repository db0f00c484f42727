import ArgumentParser
import Foundation
import MICommands

/// What each console command accepts, read from swift-argument-parser's own description of the
/// command definitions (`--experimental-dump-help`), so completion can never drift from the
/// parser: there is no hand-kept list of options.
struct CommandCatalog: Sendable {
    struct Argument: Sendable {
        enum Kind: String, Sendable { case positional, option, flag }
        let kind: Kind
        /// `--role`, `-y` … (empty for positionals).
        let names: [String]
        /// `uid`, `form`, `file`, `dir` … — the value name also chooses what completes it.
        let valueName: String?
        /// The fixed choices of an enum-valued argument (`foreman`, `technician`, `support`).
        let choices: [String]
        let isRepeating: Bool
    }

    struct Command: Sendable {
        let name: String
        let abstract: String
        let arguments: [Argument]
        /// Nested commands (`policy show`, `policy set`), read from the same dump.
        var subcommands: [Command] = []
    }

    let commands: [Command]

    func command(_ name: String) -> Command? { commands.first { $0.name == name } }

    static let shared = CommandCatalog(registry: CommandRegistry.commands)

    init(registry: [any ConsoleCommand.Type]) {
        commands = registry.map { type in
            CommandCatalog.dump(of: type).map { CommandCatalog.command(from: $0, name: type.name) }
                ?? Command(name: type.name, abstract: type.configuration.abstract, arguments: [])
        }
    }

    /// The parser's JSON description of a command (with its subcommands), or nil.
    private static func dump(of type: any ConsoleCommand.Type) -> [String: Any]? {
        let dump: String
        do {
            _ = try type.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            dump = type.fullMessage(for: error)
        }
        guard let json = try? JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any] else { return nil }
        return json["command"] as? [String: Any]
    }

    private static func command(from json: [String: Any], name: String) -> Command {
        let subcommands = (json["subcommands"] as? [[String: Any]] ?? []).compactMap { sub -> Command? in
            guard let subName = sub["commandName"] as? String, subName != "help" else { return nil }
            return command(from: sub, name: subName)
        }
        return Command(name: name, abstract: json["abstract"] as? String ?? "",
                       arguments: arguments(json["arguments"] as? [[String: Any]] ?? []), subcommands: subcommands)
    }

    private static func arguments(_ arguments: [[String: Any]]) -> [Argument] {
        arguments.compactMap { raw -> Argument? in
            guard (raw["shouldDisplay"] as? Bool) != false,
                  let kind = (raw["kind"] as? String).flatMap(Argument.Kind.init(rawValue:)) else { return nil }
            let names = (raw["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                guard let text = name["name"] as? String else { return nil }
                return (name["kind"] as? String) == "short" ? "-" + text : "--" + text
            }
            if names.contains("--help") || names.contains("-h") { return nil }
            return Argument(kind: kind, names: names, valueName: raw["valueName"] as? String,
                            choices: raw["allValues"] as? [String] ?? [],
                            isRepeating: raw["isRepeating"] as? Bool ?? false)
        }
    }
}
