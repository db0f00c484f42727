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
