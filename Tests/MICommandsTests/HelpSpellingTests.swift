import Foundation
import MICommands
import Testing

/// GNU aspell, where it is installed.
private let aspell: String? = ["/usr/bin/aspell", "/usr/local/bin/aspell"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Every word of every command's help (and of the console words' one-line help) is an English
/// word or one of the project's own (`Tests/Fixtures/spelling/help-words.txt`: user ids, config
/// keys, protocol names). GNU aspell reads the text; a word it does not know fails the test with
/// the word and the command it stands in, so a typo ("aforeman") cannot ship in a help text.
@Suite(.enabled(if: aspell != nil, "needs GNU aspell with its English dictionary (Scripts/install-deps)"))
struct HelpSpellingTests {

    static let projectWords: URL = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Fixtures/spelling/help-words.txt")
    }()

    /// Each help text with the words that name it: `move`, `policy set`, `\watch`.
    static func helpTexts() -> [(name: String, text: String)] {
        var texts: [(String, String)] = []
        for command in CommandRegistry.commands {
            texts.append((command.name, CommandRegistry.helpText(for: [command.name]) ?? ""))
            for sub in command.configuration.subcommands.compactMap({ $0 as? any ConsoleCommand.Type }) {
                texts.append(("\(command.name) \(sub.name)", CommandRegistry.helpText(for: [command.name, sub.name]) ?? ""))
            }
        }
        for builtin in CommandRegistry.builtins { texts.append((builtin.name, builtin.abstract)) }
        return texts
    }

    /// The words aspell does not know in `text`, besides the project's own.
    static func unknownWords(_ text: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: aspell!)
        // `--personal` takes an aspell word list: a header line, then one word a line.
        let own = try String(contentsOf: projectWords, encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let personal = FileManager.default.temporaryDirectory.appendingPathComponent("miadmin-words-\(UUID().uuidString)")
        try (["personal_ws-1.1 en \(own.count) utf-8"] + own).joined(separator: "\n")
            .appending("\n").write(to: personal, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: personal) }
        process.arguments = ["list", "--lang=en", "--encoding=utf-8", "--personal=\(personal.path)"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let listed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "aspell exited \(process.terminationStatus)")
        return Array(Set(String(decoding: listed, as: UTF8.self).split(separator: "\n").map(String.init))).sorted()
    }

    @Test func everyHelpTextIsSpelledRight() throws {
        let texts = Self.helpTexts()
        #expect(texts.count > 40, "the registry's help texts were not found")
        var misspelled: [String] = []
        for (name, text) in texts {
            // `\watch` and the like: the backslash word is a name, not English.
            let plain = text.replacingOccurrences(of: #"\\[a-z]+"#, with: " ", options: .regularExpression)
            for word in try Self.unknownWords(plain) { misspelled.append("\(name): \(word)") }
        }
        #expect(misspelled.isEmpty, "words not in the English dictionary nor in \(Self.projectWords.lastPathComponent): \(misspelled)")
    }

    /// The check can fail: a typo the issue found is caught.
    @Test func aTypoIsCaught() throws {
        #expect(try Self.unknownWords("Lists the forms a foreman's crews hold, as aforeman sees them.") == ["aforeman"])
    }
}
