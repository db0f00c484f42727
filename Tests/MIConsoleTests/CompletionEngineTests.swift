import MICommands
import Testing
@testable import MIConsole

@Suite("Completion engine")
struct CompletionEngineTests {
    func engine() throws -> CompletionEngine {
        var sources = CompletionEngine.Sources()
        sources.userIDs = { prefix, _ in ["jdoe", "asmith", "mkhan"].filter { $0.hasPrefix(prefix) } }
        sources.formReferences = { prefix, _ in ["jdoe/Pump station 4", "jdoe/Valve"].filter { $0.hasPrefix(prefix) } }
        let catalog = try CommandCatalog(registry: CommandRegistry.commands)
        return CompletionEngine(catalog: catalog, sources: sources)
    }

    @Test func commandNames() throws {
        #expect(try engine().complete(line: "mo", word: "mo") == .words(["move"]))
        #expect(try engine().complete(line: "qu", word: "qu") == .words(["quit"]))
    }

    @Test func optionsAndTheirChoices() throws {
        #expect(try engine().complete(line: "users --ro", word: "--ro") == .words(["--role"]))
        #expect(try engine().complete(line: "users --role t", word: "t") == .words(["technician"]))
    }

    @Test func positionalsByValueNameAndCompletionKind() throws {
        #expect(try engine().complete(line: "move jdoe/P", word: "jdoe/P") == .words(["jdoe/Pump station 4"]))
        #expect(try engine().complete(line: "move 12 as", word: "as") == .words(["asmith"]))
        #expect(try engine().complete(line: "import ", word: "") == .files)
        #expect(try engine().complete(line: "source ", word: "") == .files)
    }

    @Test func subcommands() throws {
        #expect(try engine().complete(line: "policy s", word: "s") == .words(["set", "show"]))
        #expect(try engine().complete(line: "help policy s", word: "s") == .words(["set", "show"]))
    }

    @Test func anOpenQuoteCompletesTheQuotedWord() throws {
        #expect(try engine().complete(line: "show 'jdoe/Pump st", word: "jdoe/Pump st") == .words(["jdoe/Pump station 4"]))
    }
}
