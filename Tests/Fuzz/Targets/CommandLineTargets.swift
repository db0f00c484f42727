import ArgumentParser
import Foundation
import MICommands
import MIConsole

enum CommandLineTargets {
    /// Any line: split into words or refused (unterminated quote); quoting the words and
    /// splitting again gives the same words (what completion and history rely on).
    static func tokenizer(_ data: Data) throws(FuzzFinding) {
        let line = String(decoding: data, as: UTF8.self)
        guard let words = try? LineLexer.split(line) else { return }
        let requoted = words.map(LineLexer.quote).joined(separator: " ")
        let again: [String]
        do { again = try LineLexer.split(requoted) } catch {
            throw FuzzFinding("quoted words do not split: \(error)")
        }
        try check(again == words, "quote/split round trip changed the words")
        try substitution(line)
    }

    /// A script line (CRLF, BOM, NUL and all: the lexer sees what the line reader hands it):
    /// cut at psql's `\\` into commands that, joined by it again, give the line back (nothing
    /// lost or moved between commands); each command's words looked up with hostile values give
    /// words or an error, never a crash; read as an expression with each variable form (`:v`,
    /// `:'v'`, `:"v"`, `:{?v}`) holding hostile values, it gives a value or an error.
    static func scriptLine(_ data: Data) throws(FuzzFinding) {
        let line = String(decoding: data, as: UTF8.self)
        let commands = LineLexer.lex(line).commands
        try check(!commands.isEmpty, "no command from a line")
        try check(commands.map(\.written).joined(separator: "\\\\") == line, "the commands joined again are not the line")
        for command in commands {
            for value in ["3", "a=b OR 1)", "-9223372036854775808", "'", "(", "", "\\\\ \\gset", line] {
                let look: (String) -> String? = { $0 == "unset" ? nil : value }
                _ = try? command.words(value: look)
                _ = try? command.gsetWords(value: look)
                _ = try? ScriptExpression.evaluate(command.pieces, for: "\\if", value: look)
            }
        }
    }

    /// A stand-in value that no input holds (inputs holding it are skipped).
    private static let placeholder = "\u{F8FF}"

    /// Variable substitution (`:'NAME'`, `:"NAME"`, on the lexed words): a quoted value can
    /// never escape its word. The line, once as a value in fixed lines and once as a line
    /// around hostile values, gives the same commands and words as with a plain stand-in value,
    /// the stand-in replaced by the value. Raw references (`:NAME`) are split into words by
    /// design and are left out.
    static func substitution(_ line: String) throws(FuzzFinding) {
        // By scalars too: followed by a combining mark the stand-in is part of another Character,
        // which String's contains(_:) does not match, but the replacement below would replace.
        guard !line.unicodeScalars.contains(where: { String($0) == placeholder }) else { return }
        for template in ["show :'v'", "comment 7 :'v' --yes", "move 7 x --note=:'v'", "x :'v':'v' y", "a\":'v'\" b:'v' :'v'#c",
                         "x :\"v\" \\gset :'v' \\\\ \\echo :'v'"] {
            try sameWords(template: template, value: line)
        }
        let commands = LineLexer.lex(line).commands
        let raw = commands.contains { command in
            (command.words + (command.gset ?? [])).contains { word in
                word.parts.contains { if case .reference(let reference) = $0 { reference.kind == .raw } else { false } }
            }
        }
        guard !raw else { return }
        for value in ["a b' \"c\" \\ #d :v\n-x\u{301}", "-x 'y'", "", "x \\\\ \\gset y\r\n\u{FEFF}\0"] {
            try sameWords(template: line, value: value)
        }
    }

    /// By scalars: the stand-in followed by a combining mark is one Character, which a
    /// Character-wise replacement would not find.
    private static func replacingPlaceholder(in word: String, with value: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in word.unicodeScalars {
            if String(scalar) == placeholder { result.append(contentsOf: value.unicodeScalars) } else { result.append(scalar) }
        }
        return String(result)
    }

    /// Each command's words and `\gset` words, every variable holding `value`.
    private static func words(_ commands: [LexedCommand], _ value: String) throws -> [[String]] {
        try commands.flatMap { [try $0.words { _ in value }, try $0.gsetWords { _ in value } ?? ["(no gset)"]] }
    }

    private static func sameWords(template: String, value: String) throws(FuzzFinding) {
        let commands = LineLexer.lex(template).commands
        let expected: [[String]]
        do {
            expected = try words(commands, placeholder).map { $0.map { replacingPlaceholder(in: $0, with: value) } }
        } catch {
            do {
                _ = try words(commands, value)
            } catch {
                return  // refused both ways (an unterminated quote in the line itself)
            }
            throw FuzzFinding("a value made a refused line split: \(error)")
        }
        let found: [[String]]
        do {
            found = try words(commands, value)
        } catch is VariableReference.ValueLooksLikeOption {
            try check(value.hasPrefix("-"), "a value not starting with '-' was refused as an option")
            return
        } catch {
            throw FuzzFinding("a quoted value made the line fail: \(error)")
        }
        try check(found == expected, "a quoted value escaped its word")
    }

    /// Any line, parsed as the console parses it: by the command its first word names (or, when
    /// it names none, by the command the first byte picks), without running it. Parsing may
    /// refuse the line but must not crash, and a refusal has a message.
    static func arguments(_ data: Data) throws(FuzzFinding) {
        let line = String(decoding: data, as: UTF8.self)
        guard var words = try? LineLexer.split(line) else { return }
        if words.first.flatMap(CommandRegistry.command(named:)) == nil {
            let pick = CommandRegistry.commands[Int(data.first ?? 0) % CommandRegistry.commands.count]
            words.insert(pick.name, at: 0)
        }
        let root = CommandRegistry.command(named: words[0])!
        _ = CommandRegistry.helpText(for: words)
        do {
            _ = try root.parseAsRoot(Array(words.dropFirst()))
        } catch {
            if root.exitCode(for: error) == .success {
                _ = root.fullMessage(for: error)
            } else {
                try check(!root.message(for: error).isEmpty, "a refused line came without a message")
            }
        }
    }
}
