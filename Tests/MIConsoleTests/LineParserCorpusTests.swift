import ArgumentParser
@testable import MIConsole
import MICommands
import Testing

/// `LineParser` against `parseAsRoot` over a corpus of lines for every command and subcommand the
/// console has: a plain line, the plain line with each option (`--name value` and `--name=value`),
/// and lines argument-parser refuses or answers with help (a missing or extra value, an unknown
/// option, an option without its value, a quoted word with blanks, `--` before a word, a help
/// flag after the arguments). The expected outcomes are taken first, in corpus order; the
/// console's parses then run in reverse order and again forwards, so an outcome that depended on
/// an earlier line (the vendored parser's caches: Vendor/swift-argument-parser/PATCHES.md) shows.
@Suite struct LineParserCorpusTests {
    typealias Outcome = LineParserTests.Outcome

    /// The corpus of `node`: words after the command name.
    static func corpus(_ root: any ConsoleCommand.Type, _ node: DefaultValuesTests.Node) -> [[String]] {
        var lines: [[String]] = [node.words, node.words + ["--bogus"], node.words + ["--help"]]
        guard let plain = DefaultValuesTests.plainLine(root, node) else { return lines }
        lines += [plain, plain + ["extra value"], plain + ["--bogus", "1"], plain + ["-h"], plain + ["--", "--help"],
                  plain + ["--", "x"]]
        for argument in node.arguments where !argument.isBuiltIn {
            guard let name = argument.name else { continue }
            switch argument.kind {
            case "flag":
                lines += [plain + [name], plain + [name, name]]
            default:
                for value in argument.candidates.prefix(2) {
                    lines += [plain + [name, value], plain + ["\(name)=\(value)"]]
                }
                lines += [plain + [name], plain + [name, "two words"], plain + [name, "-3"]]
            }
        }
        for index in plain.indices where index >= node.words.count && !plain[index].hasPrefix("-") {
            var quoted = plain
            quoted[index] += " and more"
            lines.append(quoted)
        }
        return lines
    }

    @Test func everyCommandsCorpusParsesAsParseAsRootDoes() throws {
        var cases: [(any ConsoleCommand.Type, [String], Outcome)] = []
        for (root, node) in try DefaultValuesTests.nodes() {
            for line in Self.corpus(root, node) {
                cases.append((root, line, LineParserTests().outcome(root) { try root.parseAsRoot(line) }))
            }
        }
        for order in [Array(cases.reversed()), cases] {
            for (root, line, expected) in order {
                let viaLineParser = LineParserTests().outcome(root) { try LineParser.parse(root, line) }
                #expect(viaLineParser == expected, "\(root.name) \(line.joined(separator: " | "))")
            }
        }
        let parsed = cases.filter { if case .parsed = $0.2 { true } else { false } }.count
        print("line parser corpus: \(cases.count) lines over \(CommandRegistry.commands.count) commands, \(parsed) parse")
        #expect(cases.count > 10 * CommandRegistry.commands.count)
        #expect(parsed > 2 * CommandRegistry.commands.count)
    }
}
