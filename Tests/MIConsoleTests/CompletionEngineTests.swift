import MICommands
import Testing
@testable import MIConsole

@Suite("Completion engine")
struct CompletionEngineTests {
    func engine() throws -> CompletionEngine {
        var sources = CompletionEngine.Sources()
        sources.userIDs = { prefix, _ in ["jdoe", "asmith", "mkhan"].filter { $0.hasPrefix(prefix) } }
        sources.formReferences = { prefix, _ in ["jdoe/Pump station 4", "jdoe/Valve"].filter { $0.hasPrefix(prefix) } }
        sources.crewNames = { ["Kolonne Nord", "Kolonne Süd", "Ost"] }
        sources.variableNames = { ["CREWS", "crew", "tech"] }
        let catalog = try CommandCatalog(registry: CommandRegistry.commands)
        return CompletionEngine(catalog: catalog, sources: sources)
    }

    @Test func commandNames() throws {
        #expect(try engine().complete(line: "mo", word: "mo") == .words(["move"]))
        #expect(try engine().complete(line: "qu", word: "qu") == .words(["quit"]))
    }

    /// Backslash commands complete with their backslash; `\h` takes command names as `help`
    /// does, `\o` a file name.
    @Test func backslashCommands() throws {
        #expect(try engine().complete(line: "\\wa", word: "\\wa") == .words(["\\warn", "\\watch"]))
        #expect(try engine().complete(line: "\\", word: "\\").wordsOrEmpty.contains("\\gset"))
        #expect(try engine().complete(line: "\\", word: "\\").wordsOrEmpty.contains("\\q"))
        #expect(try engine().complete(line: "  \\h mo", word: "mo") == .words(["move"]))
        #expect(try engine().complete(line: "\\o ", word: "") == .files)
        #expect(try engine().complete(line: "\\timing o", word: "o") == .words(["off", "on"]))
        #expect(try engine().complete(line: "\\set x ", word: "") == .words([]))
    }

    /// The command being typed is the last of the line, read as the run loop reads it: after
    /// psql's `\\`, a backslash word or a command starts again; after `\gset` nothing completes.
    @Test func afterASeparatorTheNextCommandCompletes() throws {
        #expect(try engine().complete(line: "whoami \\gset p_ \\\\ \\tim", word: "\\tim") == .words(["\\timing"]))
        #expect(try engine().complete(line: "\\echo x \\\\ mo", word: "mo") == .words(["move"]))
        #expect(try engine().complete(line: "whoami \\\\ \\timing o", word: "o") == .words(["off", "on"]))
        #expect(try engine().complete(line: "whoami \\gset m", word: "m") == .words([]))
    }

    /// Variable names after a colon, `\unset` and `\set`.
    @Test func variableNames() throws {
        #expect(try engine().complete(line: "forms --team :cr", word: ":cr") == .words([":crew"]))
        #expect(try engine().complete(line: "\\unset t", word: "t") == .words(["tech"]))
        #expect(try engine().complete(line: "\\set C", word: "C") == .words(["CREWS"]))
        #expect(try engine().complete(line: "\\set crew K", word: "K") == .words([]))
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

    /// Crew names after `--team` and as `teams show`'s argument.
    @Test func crewNames() throws {
        #expect(try engine().complete(line: "forms --team Kol", word: "Kol") == .words(["Kolonne Nord", "Kolonne Süd"]))
        #expect(try engine().complete(line: "teams show O", word: "O") == .words(["Ost"]))
        #expect(try engine().complete(line: "users --team ", word: "") == .words(["Kolonne Nord", "Kolonne Süd", "Ost"]))
        #expect(try engine().complete(line: "policy set --team Kol", word: "Kol") == .words(["Kolonne Nord", "Kolonne Süd"]))
        #expect(try engine().complete(line: "policy show --team O", word: "O") == .words(["Ost"]))
    }

    /// Every command's `--team`, nested ones too, completes crew names: the value name is what
    /// completion reads, so each says `<team>`.
    @Test func everyTeamOptionCompletesCrewNames() throws {
        let catalog = try CommandCatalog(registry: CommandRegistry.commands)
        var teamOptions = 0
        func check(_ command: CommandCatalog.Command, path: String) {
            for argument in command.arguments where argument.names.contains("--team") {
                teamOptions += 1
                #expect(argument.valueName == "team", "\(path) --team <\(argument.valueName ?? "")>")
            }
            for sub in command.subcommands { check(sub, path: path + " " + sub.name) }
        }
        for command in catalog.commands { check(command, path: command.name) }
        #expect(teamOptions >= 5, "found \(teamOptions)")
    }

    @Test func subcommands() throws {
        #expect(try engine().complete(line: "policy s", word: "s") == .words(["set", "show"]))
        #expect(try engine().complete(line: "help policy s", word: "s") == .words(["set", "show"]))
    }

    @Test func anOpenQuoteCompletesTheQuotedWord() throws {
        #expect(try engine().complete(line: "show 'jdoe/Pump st", word: "jdoe/Pump st") == .words(["jdoe/Pump station 4"]))
    }
}

extension CompletionEngine.Result {
    var wordsOrEmpty: [String] {
        if case .words(let words) = self { return words }
        return []
    }
}

extension CompletionEngineTests {
    /// `--format`/`-o`, which every command takes: its values, and it takes no positional's place.
    @Test func perCommandFormatCompletesItsValues() throws {
        #expect(try engine().complete(line: "show 12 --format j", word: "j") == .words(["json"]))
        #expect(try engine().complete(line: "move -o csv 12 as", word: "as") == .words(["asmith"]))
        #expect(try engine().complete(line: "forms --form", word: "--form") == .words(["--format"]))
    }
}
