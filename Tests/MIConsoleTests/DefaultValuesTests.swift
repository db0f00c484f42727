import ArgumentParser
import Foundation
@testable import MIConsole
import MICommands
import Testing

/// The vendored argument-parser builds a command type's argument definitions once, sets their
/// initial values once per type and reuses the value of an option group a line does not use
/// (Vendor/swift-argument-parser/PATCHES.md, changes 1, 3 and 4). All three hold only while a
/// command's default values are the same at every parse. Every registered command (and
/// subcommand) is parsed here with a plain line, then with each of its options in turn, twice
/// over, and the plain line again: it must give the same command, value for value.
@Suite struct DefaultValuesTests {
    /// One argument of a command, as argument-parser describes it (`--experimental-dump-help`).
    struct Argument {
        let kind: String
        let name: String?
        let isOptional: Bool
        let values: [String]
        let defaultValue: String?

        init(_ json: [String: Any]) {
            kind = json["kind"] as? String ?? ""
            isOptional = json["isOptional"] as? Bool ?? true
            values = json["allValueStrings"] as? [String] ?? []
            defaultValue = json["defaultValue"] as? String
            if let preferred = json["preferredName"] as? [String: Any], let text = preferred["name"] as? String {
                name = (preferred["kind"] as? String == "short" ? "-" : "--") + text
            } else {
                name = nil
            }
        }

        /// Values to try, a non-default one first: the command's own choices when it has them.
        var candidates: [String] {
            let listed = values.filter { $0 != defaultValue }
            return listed.isEmpty ? ["1", "jdoe", "Kolonne Nord", "2026-01-01", "expiry-days", "x"] : listed
        }

        var isBuiltIn: Bool { ["--help", "-h", "--version", "--experimental-dump-help"].contains(name ?? "") }
    }

    /// A command of the registry: the words that name it (`policy set`) and its arguments.
    struct Node {
        let words: [String]
        let arguments: [Argument]
    }

    static func nodes() throws -> [(any ConsoleCommand.Type, Node)] {
        var result: [(any ConsoleCommand.Type, Node)] = []
        for root in CommandRegistry.commands {
            let data = Data(root._dumpHelp().utf8)
            let info = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            func walk(_ command: [String: Any], _ words: [String]) {
                let arguments = (command["arguments"] as? [[String: Any]] ?? []).map(Argument.init)
                result.append((root, Node(words: words, arguments: arguments)))
                for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                    if let name = sub["commandName"] as? String, name != "help" { walk(sub, words + [name]) }
                }
            }
            walk(try #require(info["command"] as? [String: Any]), [])
        }
        return result
    }

    /// The parse of `words` as the console parses a line, dumped value by value; nil when the
    /// line does not parse as this command.
    static func parsed(_ root: any ConsoleCommand.Type, _ words: [String]) -> String? {
        guard let command = try? LineParser.parse(root, words), command is any ConsoleCommand else { return nil }
        var text = ""
        dump(command, to: &text)
        return text
    }

    /// The words that give `argument` each of its candidate values.
    static func pieces(_ argument: Argument) -> [[String]] {
        switch argument.kind {
        case "positional": return argument.candidates.map { [$0] }
        case "flag": return argument.name.map { [[$0]] } ?? []
        default: return argument.name.map { name in argument.candidates.map { [name, $0] } } ?? []
        }
    }

    /// A line giving what the command requires, with values it accepts; when its validation
    /// asks for more (`submit`: a form or a selection), with one or two optional arguments too.
    static func plainLine(_ root: any ConsoleCommand.Type, _ node: Node) -> [String]? {
        let required = node.arguments.filter { !$0.isOptional && !$0.isBuiltIn }
        var lines: [[String]] = [node.words]
        for argument in required {
            lines = Array(lines.flatMap { line in pieces(argument).map { line + $0 } }.prefix(200))
        }
        if let line = lines.first(where: { parsed(root, $0) != nil }) { return line }
        let optional = node.arguments.filter { $0.isOptional && !$0.isBuiltIn }.flatMap(pieces)
        for line in lines.prefix(20) {
            for first in optional {
                if parsed(root, line + first) != nil { return line + first }
            }
            for (index, first) in optional.enumerated() {
                for second in optional[(index + 1)...] where parsed(root, line + first + second) != nil {
                    return line + first + second
                }
            }
        }
        return nil
    }

    /// The plain line with one more option given, for each option the plain line does not give
    /// already, with a value that parses and changes the command; the options no such value was
    /// found for are left out.
    static func optionLines(_ root: any ConsoleCommand.Type, _ node: Node, after plain: [String]) -> [[String]] {
        let plainParse = parsed(root, plain)
        return node.arguments.filter { $0.isOptional && !$0.isBuiltIn && $0.kind != "positional" }.compactMap { argument in
            guard let name = argument.name, !plain.contains(name) else { return nil }
            return pieces(argument).map { plain + $0 }.first { line in
                guard let parse = parsed(root, line) else { return false }
                return parse != plainParse
            }
        }
    }

    @Test func everyCommandsDefaultsAreTheSameAfterAnyNumberOfParses() throws {
        var commands = 0, optionParses = 0
        var unparsed: [String] = []
        for (root, node) in try Self.nodes() {
            guard let plain = Self.plainLine(root, node) else {
                unparsed.append(([root.name] + node.words).joined(separator: " ")
                                + " (required: " + node.arguments.filter { !$0.isOptional && !$0.isBuiltIn }
                                    .map { $0.name ?? $0.kind }.joined(separator: ", ") + ")")
                continue
            }
            let before = try #require(Self.parsed(root, plain))
            let variants = Self.optionLines(root, node, after: plain)
            for _ in 0..<2 {
                for line in variants {
                    // Each was chosen for changing the command; it must change it every time.
                    #expect(Self.parsed(root, line) != before, "\(line.joined(separator: " ")) parsed as the plain line")
                    optionParses += 1
                }
                #expect(Self.parsed(root, plain) == before,
                        "\(plain.joined(separator: " ")): defaults changed after \(variants.count) lines with options")
            }
            commands += 1
        }
        print("default values: \(commands) commands and subcommands, \(optionParses) parses with an option between their plain lines")
        #expect(unparsed.isEmpty, "no plain line found for: \(unparsed.joined(separator: ", "))")
        #expect(commands >= CommandRegistry.commands.count)
        #expect(optionParses > 0)
    }
}
