import Foundation
import MIConsole
import MITestSupport
import Testing

/// Every example the console shows (`help CMD`'s "Examples:") and every example line of the
/// command reference (docs/commands.md, docs/commands-expiry.md) runs through the built binary
/// against a store with the sample forms. An example may fail for what it does (a form already
/// moved, a role it needs, no office configured), never because the console cannot parse it.
@Suite struct ExamplesTests {
    let fixture = Fixture.shared

    /// Lines of `help`'s text: the indented lines after "Example:" / "Examples:", up to the
    /// first blank line; a `# comment` at the end is the tokenizer's to drop. Help wraps a long
    /// example at the width of the screen: a line that is not indented continues the one before.
    static func examples(inHelp text: String) -> [String] {
        var found: [String] = []
        var inExamples = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Example") && trimmed.hasSuffix(":") { inExamples = true; continue }
            if trimmed.isEmpty { inExamples = false; continue }
            guard inExamples else { continue }
            if !line.hasPrefix(" "), let last = found.popLast() {
                found.append(last + " " + trimmed)
            } else {
                found.append(trimmed)
            }
        }
        return found
    }

    /// A markdown file's code lines (four spaces in) that are console lines: a command word
    /// first, or the `-c` commands of a `miadmin` line. In a block that shows a session
    /// (`mkhan@foreman> ` before the typed lines), only the typed lines are: the rest is output.
    static func examples(inMarkdown text: String, commands: Set<String>) -> [String] {
        var found: [String] = []
        var block: [String] = []
        let prompt = #"^[a-z0-9]+@[a-z]+> "#
        func endBlock() {
            let session = block.contains { $0.range(of: prompt, options: .regularExpression) != nil }
            for code in block {
                if let typed = code.range(of: prompt, options: .regularExpression) {
                    found += consoleLines(String(code[typed.upperBound...]), commands: commands)
                } else if !session {
                    found += consoleLines(code, commands: commands)
                }
            }
            block = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("    ") {
                block.append(line.trimmingCharacters(in: .whitespaces))
            } else {
                endBlock()
            }
        }
        endBlock()
        return found
    }

    /// The console lines of one example line: itself when it starts with a command word; for a
    /// shell line (`miadmin … -c 'forms -x' | less`), its `-c` values (the shell's quoting is
    /// the tokenizer's, for these lines; what follows a pipe or redirection is not ours).
    static func consoleLines(_ code: String, commands: Set<String>) -> [String] {
        var code = code
        if code.hasPrefix("$ ") { code.removeFirst(2) }
        if code.hasPrefix("miadmin ") {
            let shell = code.prefix { $0 != "|" && $0 != ">" }
            guard let words = try? LineLexer.split(String(shell)) else { return [] }
            return words.indices.filter { words[$0] == "-c" && $0 + 1 < words.count }.map { words[$0 + 1] }
        }
        return commands.contains(String(code.prefix { $0 != " " })) ? [code] : []
    }

    /// The failures that are the parser's: a parse error names the command and ends with where
    /// to read its usage, or says how to quote; an unknown command; an open quote.
    static func isParseFailure(_ message: String) -> Bool {
        message.contains("(see 'help ") || message.contains("unknown command") || message.contains("unterminated")
            || message.contains("must be quoted, as in:") || message.contains("to give a reason use --note")
            || message.contains("a space after a comma splits the list")
    }

    @Test func everyExampleInHelpAndTheCommandReferenceParses() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        func console(_ commands: [String]) throws -> ProcessResult {
            try MIAdmin.as_("mkhan", config: config, commands)
        }

        // The commands, from `help`'s own list, and their subcommands from each one's help.
        let listing = try MIAdmin.as_("mkhan", config: config, format: "csv", ["help"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let names = listing.lines.dropFirst().map { String($0.prefix { $0 != "," }) }
        let builtins: Set<String> = ["source", "quit", "\\x", "exit", "\\q"]
        // The console words have one line of help and no examples; `help \gset` would be a
        // `\gset` of help's own listing.
        var paths: [String] = names.filter { !builtins.contains($0) && !$0.hasPrefix("\\") }
        var helpExamples: [(String, String)] = []
        var index = 0
        while index < paths.count {
            let path = paths[index]
            index += 1
            let help = try console(["help " + path])
            #expect(help.status == 0, "help \(path): \(help.stderr)")
            for example in Self.examples(inHelp: help.stdout) {
                for line in Self.consoleLines(example, commands: Set(names)) { helpExamples.append((path, line)) }
            }
            // SUBCOMMANDS: the indented names below it (`  set   Change ...`).
            if let section = help.stdout.range(of: "SUBCOMMANDS:\n") {
                for line in help.stdout[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
                    guard line.hasPrefix("  ") else { break }
                    // A name is two spaces in; its description wraps further in.
                    guard !line.hasPrefix("   ") else { continue }
                    let sub = line.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }
                    if !sub.isEmpty && sub != "help" { paths.append(path + " " + sub) }
                }
            }
        }
        #expect(helpExamples.count > 60, "examples found in help: \(helpExamples.count)")

        var docExamples: [(String, String)] = []
        for file in ["docs/commands.md", "docs/commands-expiry.md"] {
            let text = try String(contentsOfFile: Paths.repoRoot + "/" + file, encoding: .utf8)
            for example in Self.examples(inMarkdown: text, commands: Set(names)) { docExamples.append((file, example)) }
        }
        #expect(docExamples.count > 30, "examples found in the docs: \(docExamples.count)")
        #expect(docExamples.contains { $0.1 == "workload --owner 'u0000*' --format csv" })

        // One script of them all, run where files they write land in a folder of the test's;
        // `quit` would end it early.
        let all = (helpExamples + docExamples).filter { !["quit", "exit", "\\q"].contains($0.1) }
        let dir = try TempDir.make()
        let script = dir + "/examples.mi"
        try all.map(\.1).joined(separator: "\n").appending("\n").write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Shell.run("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", dir, Paths.binary,
                                               "--config", config, "--user", "mkhan", "--on-error", "continue", "-f", script],
                                   environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")], deadline: 600)
        let failures = result.stderr.split(separator: "\n").filter { Self.isParseFailure(String($0)) }
        for failure in failures {
            // "FILE:LINE: message": name the example and where it came from.
            let line = failure.dropFirst(script.count + 1).prefix { $0.isNumber }
            let origin = Int(line).map { $0 - 1 < all.count && $0 >= 1 ? "\(all[$0 - 1].0): \(all[$0 - 1].1)" : "?" } ?? "?"
            Issue.record("an example does not parse (\(origin)): \(failure)")
        }
        #expect(result.stdout.contains("Generator monthly"), "the examples ran against the sample store")
    }

    /// The checks above must be able to fail: a line the parser refuses is found as one.
    @Test func aBrokenExampleIsFoundAsAParseFailure() throws {
        let result = try MIAdmin.as_("mkhan", ["show 12 --frobnicate", "forms --state nosuch"])
        #expect(result.status == 1)
        #expect(Self.isParseFailure(result.stderr), "\(result.stderr)")
        let refused = try MIAdmin.as_("mkhan", ["move 999999 asmith --yes"])
        #expect(refused.status != 0 && !Self.isParseFailure(refused.stderr), "\(refused.stderr)")
        #expect(Self.examples(inHelp: "Examples:\n  show 12\n  show 12 --format json  # as\nJSON\n\nmore")
                == ["show 12", "show 12 --format json  # as JSON"])
        #expect(Self.examples(inMarkdown: "    mkhan@foreman> move 41 asmith\n    move 1 form? [y/N]\n\nText\n\n"
                              + "    move 2 jdoe\n    miadmin --user mkhan -c 'forms -x' | less\n",
                              commands: ["move", "forms"]) == ["move 41 asmith", "move 2 jdoe", "forms -x"])
    }
}

extension ExamplesTests {
    /// `--format`/`-o` after a command: that command's output only; the next is in the run's format.
    @Test func aCommandsOwnFormatHoldsForThatCommandOnly() throws {
        let config = try fixture.store(importing: Paths.copyOfSampleTree())
        let json = try MIAdmin.as_("mkhan", config: config, ["show 'jdoe/Generator monthly' --format json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["name"] as? String == "Generator monthly", "\(json.stdout)")

        let mixed = try MIAdmin.as_("mkhan", config: config, ["workload --owner jdoe -o csv", "whoami"])
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(mixed.lines.first?.hasPrefix("uid,") == true, "\(mixed.stdout)")
        #expect(mixed.stdout.contains("jdoe,John Doe,"))
        #expect(mixed.lines.contains { $0.hasPrefix("uid ") && $0.hasSuffix(" mkhan") }, "the whoami after it is a table: \(mixed.stdout)")

        let refused = try MIAdmin.as_("mkhan", config: config, ["forms --format xml"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: forms: --format: 'xml' is not one of table, csv, json (see 'help forms')\n", "\(refused.stderr)")
    }
}
