import Foundation
import MIConsole
import MITestSupport

/// Where the console's examples are written, and how each is read out of its text: `help CMD`'s
/// "Examples:", the man page (the same help texts, in roff), docs/commands.md and
/// docs/commands-expiry.md (indented or fenced code lines), and the README's console lines.
enum ExampleSources {
    /// One example: the console line and where it was found.
    struct Example: Hashable {
        let origin: String
        let line: String
    }

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

    /// The help texts of the man page (`miadmin --generate-manual`): each preformatted block
    /// (`.nf` … `.fi`) with roff's escapes undone.
    static func helpTexts(inManual page: String) -> [String] {
        var texts: [String] = []
        var block: [String]?
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == ".nf" { block = []; continue }
            if line == ".fi" {
                texts.append((block ?? []).joined(separator: "\n"))
                block = nil
                continue
            }
            guard block != nil else { continue }
            var text = line.hasPrefix("\\&") ? String(line.dropFirst(2)) : line
            text = text.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
            block?.append(text)
        }
        return texts
    }

    /// A markdown file's code lines (four spaces in, or in a fenced block) that are console
    /// lines: a command word first, or the `-c` commands of a `miadmin` line. In a block that
    /// shows a session (`mkhan@foreman> ` before the typed lines), only the typed lines are: the
    /// rest is output. A synopsis (`restore FORM [--note TEXT]`: a placeholder in capitals, `[`
    /// or `|`) is not an example.
    static func examples(inMarkdown text: String, commands: Set<String>) -> [String] {
        var found: [String] = []
        var block: [String] = []
        var fenced = false
        let prompt = #"^[a-z0-9]+@[a-z]+> "#
        func endBlock() {
            let session = block.contains { $0.range(of: prompt, options: .regularExpression) != nil }
            for code in block {
                if let typed = code.range(of: prompt, options: .regularExpression) {
                    found += consoleLines(String(code[typed.upperBound...]), commands: commands)
                } else if !session && (code.hasPrefix("miadmin ") || !isSynopsis(code)) {
                    found += consoleLines(code, commands: commands)
                }
            }
            block = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                endBlock()
                fenced.toggle()
            } else if fenced || line.hasPrefix("    ") {
                block.append(line.trimmingCharacters(in: .whitespaces))
            } else {
                endBlock()
            }
        }
        endBlock()
        return found
    }

    /// A usage line rather than a line to type: `[`, `|` or a placeholder word in capitals
    /// outside quotes.
    static func isSynopsis(_ code: String) -> Bool {
        let unquoted = code.split(separator: "'", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
        let beforeComment = unquoted.prefix { $0 != "#" }
        return beforeComment.contains("[") || beforeComment.contains("|")
            || beforeComment.split(separator: " ").contains { $0.count > 0 && $0.allSatisfy { $0.isUppercase || $0 == "_" } }
    }

    /// The README's console lines: the `-c` commands of its shell blocks, and the commands the
    /// "Try it" section names in backquotes (`today`, `find 'jdoe/Pump station 4'`).
    static func examples(inReadme text: String, commands: Set<String>) -> [String] {
        var found: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if fenced { found += consoleLines(line.trimmingCharacters(in: .whitespaces), commands: commands) }
        }
        if let start = text.range(of: "## Try it"), let end = text.range(of: "\n## ", range: start.upperBound..<text.endIndex) {
            // Spans may wrap over a line end: one space.
            let section = text[start.upperBound..<end.lowerBound].replacingOccurrences(of: "\n", with: " ")
            let spans = section.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            found += spans.filter { commands.contains(String($0.prefix { $0 != " " })) }
        }
        return found
    }

    /// The console lines of one example line: itself when it starts with a command word; for a
    /// shell line (`miadmin … -c 'forms -x' | less`), its `-c` values (the shell's quoting is
    /// the tokenizer's, for these lines; what follows a pipe or redirection is not ours).
    static func consoleLines(_ code: String, commands: Set<String>) -> [String] {
        var code = code
        if code.hasPrefix("$ ") { code.removeFirst(2) }
        if code.hasPrefix("miadmin ") || code.hasPrefix("MIADMIN_PASSWORD=") {
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

    /// Every example, in the order of the places above (one written in several places is
    /// listed for each); `run` runs a console line (`help CMD`).
    static func all(commands names: [String], run: (String) throws -> ProcessResult) throws -> [Example] {
        let builtins: Set<String> = ["source", "quit", "\\x", "exit", "\\q"]
        // The console words have one line of help and no examples; `help \gset` would be a
        // `\gset` of help's own listing.
        var paths: [String] = names.filter { !builtins.contains($0) && !$0.hasPrefix("\\") }
        let commands = Set(names)
        var found: [Example] = []
        var index = 0
        while index < paths.count {
            let path = paths[index]
            index += 1
            let help = try run("help " + path)
            guard help.status == 0 else { throw DemoTestError(description: "help \(path): \(help.stderr)") }
            for example in examples(inHelp: help.stdout) {
                found += consoleLines(example, commands: commands).map { Example(origin: "help \(path)", line: $0) }
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
        let manual = try MIAdmin.run(["--generate-manual"])
        guard manual.status == 0 else { throw DemoTestError(description: "--generate-manual: \(manual.stderr)") }
        for text in helpTexts(inManual: manual.stdout) {
            for example in examples(inHelp: text) {
                found += consoleLines(example, commands: commands).map { Example(origin: "man page", line: $0) }
            }
        }
        for file in ["docs/commands.md", "docs/commands-expiry.md"] {
            let text = try String(contentsOfFile: Paths.repoRoot + "/" + file, encoding: .utf8)
            found += examples(inMarkdown: text, commands: commands).map { Example(origin: file, line: $0) }
        }
        let readme = try String(contentsOfFile: Paths.repoRoot + "/README.md", encoding: .utf8)
        found += examples(inReadme: readme, commands: commands).map { Example(origin: "README.md", line: $0) }
        // `quit` would end the run early; it has nothing to find in the data.
        return found.filter { !["quit", "exit", "\\q"].contains($0.line) }
    }
}
