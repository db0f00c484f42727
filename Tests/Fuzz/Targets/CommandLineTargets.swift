import ArgumentParser
import Foundation
import MICommands
import MIConsole

enum CommandLineTargets {
    /// Any line: split into words or refused (unterminated quote); quoting the words and
    /// splitting again gives the same words (what completion and history rely on).
    static func tokenizer(_ data: Data) throws(FuzzFinding) {
        let line = String(decoding: data, as: UTF8.self)
        guard let words = try? Tokenizer.split(line) else { return }
        let requoted = words.map(Tokenizer.quote).joined(separator: " ")
        let again: [String]
        do { again = try Tokenizer.split(requoted) } catch {
            throw FuzzFinding("quoted words do not split: \(error)")
        }
        try check(again == words, "quote/split round trip changed the words")
        try substitution(line)
    }

    /// A script line: cut at psql's `\\` into commands that, joined by it again, give the line
    /// back (nothing lost or moved between commands); read as an expression with each variable
    /// form (`:v`, `:'v'`, `:"v"`, `:{?v}`) holding hostile values, it gives a value or an error,
    /// never a crash.
    static func scriptLine(_ data: Data) throws(FuzzFinding) {
        let line = String(decoding: data, as: UTF8.self)
        let commands = ScriptLine.commands(line)
        try check(!commands.isEmpty, "no command from a line")
        try check(commands.joined(separator: "\\\\") == line, "the commands joined again are not the line")
        let pieces = VariableSubstitution.parse(line)
        for value in ["3", "a=b OR 1)", "-9223372036854775808", "'", "(", "", line] {
            _ = try? ScriptExpression.evaluate(pieces, for: "\\if") { $0 == "unset" ? nil : value }
        }
    }

    /// A stand-in value that no input holds (inputs holding it are skipped).
    private static let placeholder = "\u{F8FF}"

    /// Variable substitution (`:'NAME'`, VariableSubstitution): a quoted value can never escape
    /// its word. The line, once as a value in fixed lines and once as a line around hostile
    /// values, gives the same words as with a plain stand-in value, the stand-in replaced by the
    /// value. Raw references (`:NAME`) are text by design and are left out.
    static func substitution(_ line: String) throws(FuzzFinding) {
        guard !line.contains(placeholder) else { return }
        for template in ["show :'v'", "comment 7 :'v' --yes", "move 7 x --note=:'v'", "x :'v':'v' y", "a\":'v'\" b:'v' :'v'#c"] {
            try sameWords(template: template, value: line)
        }
        let pieces = VariableSubstitution.parse(line)
        guard !pieces.contains(where: { if case .reference(let reference, _) = $0 { reference.kind == .raw } else { false } }) else { return }
        for value in ["a b' \"c\" \\ #d :v\n-x\u{301}", "-x 'y'", ""] {
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

    private static func sameWords(template: String, value: String) throws(FuzzFinding) {
        let expected: [String]
        do {
            expected = try Tokenizer.split(try VariableSubstitution.apply(template) { _ in placeholder })
                .map { replacingPlaceholder(in: $0, with: value) }
        } catch {
            do {
                _ = try Tokenizer.split(try VariableSubstitution.apply(template) { _ in value })
            } catch {
                return  // refused both ways (an unterminated quote in the line itself)
            }
            throw FuzzFinding("a value made a refused line split: \(error)")
        }
        let words: [String]
        do {
            words = try Tokenizer.split(try VariableSubstitution.apply(template) { _ in value })
        } catch is VariableSubstitution.ValueLooksLikeOption {
            try check(value.hasPrefix("-"), "a value not starting with '-' was refused as an option")
            return
        } catch {
            throw FuzzFinding("a quoted value made the line fail: \(error)")
        }
        try check(words == expected, "a quoted value escaped its word")
    }

    /// Any line, parsed as the console parses it: by the command its first word names (or, when
    /// it names none, by the command the first byte picks), without running it. Parsing may
    /// refuse the line but must not crash, and a refusal has a message.
    static func arguments(_ data: Data) throws(FuzzFinding) {
        let line = String(decoding: data, as: UTF8.self)
        guard var words = try? Tokenizer.split(line) else { return }
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
