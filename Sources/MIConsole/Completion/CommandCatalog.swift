import ArgumentParser
import Foundation
import MICommands

/// What each console command accepts, read from swift-argument-parser's own description of the
/// command definitions (`--experimental-dump-help`), so completion can never drift from the
/// parser: there is no hand-kept list of options.
///
/// The dump is decoded into typed structs (``ParserDump``, the part of argument-parser's
/// `ToolInfoV0` we use) and its `serializationVersion` is checked: a format change fails the
/// unit tests loudly (`CommandCatalogTests`) instead of completion quietly losing arguments.
struct CommandCatalog: Sendable {
    struct Argument: Sendable, Equatable {
        enum Kind: String, Sendable, Decodable { case positional, option, flag }
        let kind: Kind
        /// `--role`, `-y` … (empty for positionals).
        let names: [String]
        /// `uid`, `form`, `file`, `dir` … — for values the parser knows no completion of, the
        /// value name chooses what completes it (user ids, form references).
        let valueName: String?
        /// The fixed choices of an enum-valued argument (`foreman`, `technician`, `support`).
        let choices: [String]
        let isRepeating: Bool
        /// What the definition declares completes it (`completion: .directory`, ...).
        let completion: Completion
    }

    /// An argument's declared completion, from the dump's `completionKind`.
    enum Completion: Sendable, Equatable {
        case none
        case list([String])
        case files
        case directories
        /// A shell command or a custom closure: nothing a console can run.
        case unsupported
    }

    struct Command: Sendable {
        let name: String
        let abstract: String
        let arguments: [Argument]
        /// Nested commands (`policy show`, `policy set`), read from the same dump.
        var subcommands: [Command] = []
    }

    /// Why the parser's description of a command could not be used.
    struct DumpError: Error, CustomStringConvertible {
        let command: String
        let reason: String
        var description: String { "cannot read argument-parser's description of '\(command)': \(reason)" }
    }

    /// The `serializationVersion` of argument-parser's dump this code decodes.
    static let supportedSerializationVersion = 0

    let commands: [Command]

    func command(_ name: String) -> Command? { commands.first { $0.name == name } }

    /// The catalog of every registered command. Should the parser's format ever change under
    /// us, completion falls back to command names (the unit tests fail on that first).
    static let shared: CommandCatalog = (try? CommandCatalog(registry: CommandRegistry.commands))
        ?? CommandCatalog(namesOf: CommandRegistry.commands)

    /// Reads every command's description; throws when one cannot be read.
    init(registry: [any ConsoleCommand.Type]) throws(DumpError) {
        var commands: [Command] = []
        for type in registry {
            let dump = try Self.dump(of: type)
            commands.append(Self.command(from: dump.command, name: type.name))
        }
        self.commands = commands
    }

    /// Command names and abstracts only.
    private init(namesOf registry: [any ConsoleCommand.Type]) {
        commands = registry.map { Command(name: $0.name, abstract: $0.configuration.abstract, arguments: []) }
    }

    /// The parser's description of a command (with its subcommands).
    static func dump(of type: any ConsoleCommand.Type) throws(DumpError) -> ParserDump {
        let text: String
        do {
            _ = try type.parseAsRoot(["--experimental-dump-help"])
            throw DumpError(command: type.name, reason: "the parser printed no description")
        } catch let error as DumpError {
            throw error
        } catch {
            text = type.fullMessage(for: error)
        }
        return try decode(Data(text.utf8), command: type.name)
    }

    /// Decodes a dump, checking its version first.
    static func decode(_ data: Data, command: String) throws(DumpError) -> ParserDump {
        let decoder = JSONDecoder()
        let version: Int
        do {
            version = try decoder.decode(ParserDump.Header.self, from: data).serializationVersion
        } catch {
            throw DumpError(command: command, reason: "no serializationVersion (\(error))")
        }
        guard version == supportedSerializationVersion else {
            throw DumpError(command: command, reason: "serializationVersion \(version); this console reads version "
                            + "\(supportedSerializationVersion)")
        }
        do {
            return try decoder.decode(ParserDump.self, from: data)
        } catch {
            throw DumpError(command: command, reason: "\(error)")
        }
    }

    private static func command(from info: ParserDump.CommandInfo, name: String) -> Command {
        let subcommands = (info.subcommands ?? []).filter { $0.commandName != "help" }
            .map { command(from: $0, name: $0.commandName) }
        return Command(name: name, abstract: info.abstract ?? "",
                       arguments: (info.arguments ?? []).compactMap(argument(from:)), subcommands: subcommands)
    }

    private static func argument(from info: ParserDump.ArgumentInfo) -> Argument? {
        guard info.shouldDisplay else { return nil }
        let names = (info.names ?? []).map { $0.kind == .short ? "-" + $0.name : "--" + $0.name }
        if names.contains("--help") || names.contains("-h") { return nil }
        let completion: Completion
        switch info.completionKind {
        case nil: completion = .none
        case .list(let values): completion = .list(values)
        case .file: completion = .files
        case .directory: completion = .directories
        case .shellCommand, .custom: completion = .unsupported
        }
        return Argument(kind: info.kind, names: names, valueName: info.valueName, choices: info.allValues ?? [],
                        isRepeating: info.isRepeating, completion: completion)
    }
}

/// The part of swift-argument-parser's `--experimental-dump-help` output (its `ToolInfoV0`)
/// the catalog reads. Keys not listed here are ignored; a listed key of the wrong type fails.
struct ParserDump: Decodable, Sendable {
    struct Header: Decodable { let serializationVersion: Int }

    struct CommandInfo: Decodable, Sendable {
        let commandName: String
        let abstract: String?
        let subcommands: [CommandInfo]?
        let arguments: [ArgumentInfo]?
    }

    struct ArgumentInfo: Decodable, Sendable {
        struct Name: Decodable, Sendable {
            enum Kind: String, Decodable, Sendable { case long, short, longWithSingleDash }
            let kind: Kind
            let name: String
        }
        let kind: CommandCatalog.Argument.Kind
        let shouldDisplay: Bool
        let isRepeating: Bool
        let names: [Name]?
        let valueName: String?
        let allValues: [String]?
        let completionKind: CompletionKind?
    }

    /// `{"list":{"values":[…]}}`, `{"file":{"extensions":[…]}}`, `{"directory":{}}`,
    /// `{"shellCommand":{"command":…}}`, `{"custom":{}}` (and the async and deprecated custom kinds).
    enum CompletionKind: Decodable, Sendable {
        case list([String])
        case file([String])
        case directory
        case shellCommand(String)
        case custom

        private enum Key: String, CodingKey { case list, file, directory, shellCommand, custom, customAsync, customDeprecated }
        private enum Payload: String, CodingKey { case values, extensions, command }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            guard let key = container.allKeys.first, container.allKeys.count == 1 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                        debugDescription: "expected exactly one completion kind"))
            }
            switch key {
            case .list:
                self = .list(try container.nestedContainer(keyedBy: Payload.self, forKey: key).decode([String].self, forKey: .values))
            case .file:
                self = .file(try container.nestedContainer(keyedBy: Payload.self, forKey: key).decode([String].self, forKey: .extensions))
            case .directory: self = .directory
            case .shellCommand:
                self = .shellCommand(try container.nestedContainer(keyedBy: Payload.self, forKey: key).decode(String.self, forKey: .command))
            case .custom, .customAsync, .customDeprecated: self = .custom
            }
        }
    }

    let serializationVersion: Int
    let command: CommandInfo
}
