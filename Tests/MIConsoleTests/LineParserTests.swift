import ArgumentParser
@testable import MIConsole
import MICommands
import Testing

/// `LineParser` must give what `parseAsRoot` on the command's own type gives — the same
/// command with the same values, the same errors, the same help requests — for every command.
@Suite struct LineParserTests {
    enum Outcome: Equatable {
        case parsed(type: String, values: String)
        case failed(message: String, exit: Int32)
    }

    func outcome(_ root: any ConsoleCommand.Type, _ body: () throws -> ParsableCommand) -> Outcome {
        do {
            let command = try body()
            // argument-parser's own help command (`policy set --help`): the console shows the
            // registry's help text for it either way.
            guard command is any ConsoleCommand else { return .parsed(type: "not a console command", values: "") }
            var values = ""
            dump(command, to: &values)
            return .parsed(type: String(describing: Swift.type(of: command)), values: values)
        } catch {
            return .failed(message: root.message(for: error), exit: root.exitCode(for: error).rawValue)
        }
    }

    static let lines: [[String]] = [
        ["move", "12", "asmith"], ["move", "jdoe/Pump station 4", "asmith", "--note", "on leave"], ["move", "12"],
        ["move"], ["move", "12", "asmith", "extra"], ["move", "--bogus", "1", "x"], ["move", "--help"], ["move", "-h"],
        ["forms"], ["forms", "--owner", "jdoe", "--state", "incomplete"], ["forms", "--state", "nope"],
        ["forms", "--older-than", "-3"], ["forms", "--count-by", "owner"], ["forms", "--owner"],
        ["whoami"], ["whoami", "x"], ["users", "--role", "technician"], ["users", "--role", "nosuchrole"],
        ["policy"], ["policy", "set", "--help"], ["policy", "show"], ["expire", "--dry-run"], ["purge", "--yes"],
        ["help"], ["help", "move"], ["set", "format", "json"], ["set", "format", "xml"], ["audit", "--last", "0"],
        ["move", "12", "asmith", "--help"], ["move", "12", "asmith", "-h"], ["whoami", "--version"],
        ["move", "12", "--", "--help"], ["move", "-12", "asmith"],
        ["move", "--generate-completion-script", "bash"],
    ]

    @Test(arguments: lines)
    func sameResultAsParseAsRoot(_ words: [String]) throws {
        let root = try #require(CommandRegistry.command(named: words[0]))
        let arguments = Array(words.dropFirst())
        let viaRoot = outcome(root) { try root.parseAsRoot(arguments) }
        let viaLineParser = outcome(root) { try LineParser.parse(root, arguments) }
        if words.contains("--generate-completion-script") {
            // The one difference: a line never asks for a shell's completion script.
            #expect(viaLineParser != viaRoot)
            if case .parsed = viaLineParser { Issue.record("a completion-script request must not parse as a command") }
        } else {
            #expect(viaLineParser == viaRoot)
        }
    }

    @Test func everyRegisteredCommandParsesItsHelpAlike() {
        for root in CommandRegistry.commands {
            #expect(outcome(root) { try LineParser.parse(root, ["--help"]) } == outcome(root) { try root.parseAsRoot(["--help"]) },
                    "\(root.name)")
        }
    }
}

/// The vendored argument-parser skips its built-in flag check for lines without any option
/// (Vendor/swift-argument-parser/PATCHES.md): a help flag anywhere still asks for help.
@Suite struct BuiltInFlagTests {
    @Test(arguments: [["--help"], ["12", "asmith", "--help"], ["12", "asmith", "-h"], ["jdoe/x", "asmith", "--note", "n", "--help"]])
    func helpIsFoundWhereverItStands(_ arguments: [String]) throws {
        let parsed = try LineParser.parse(MoveCommand.self, arguments)
        #expect(!(parsed is MoveCommand), "\(arguments) parsed as a move")
    }

    @Test func aLineWithoutOptionsParsesAsTheCommand() throws {
        let parsed = try #require(try LineParser.parse(MoveCommand.self, ["12", "asmith"]) as? MoveCommand)
        #expect(parsed.uid == "asmith")
    }
}

/// The vendored argument-parser reuses the value of an option group none of whose options a line
/// gives (Vendor/swift-argument-parser/PATCHES.md): a line that gives them gets them, and the
/// line after it gets the defaults again.
@Suite struct UntouchedGroupTests {
    func move(_ arguments: [String]) throws -> MoveCommand {
        try #require(try LineParser.parse(MoveCommand.self, arguments) as? MoveCommand)
    }

    @Test func givenOptionsAreNeverTakenFromAnEarlierLine() throws {
        for _ in 0..<2 {
            let plain = try move(["12", "asmith"])
            #expect(!plain.batch.dryRun && !plain.batch.yes && plain.note.note == nil)
            let given = try move(["jdoe/*", "asmith", "--dry-run", "--note", "on leave"])
            #expect(given.batch.dryRun && !given.batch.yes && given.note.note == "on leave")
            let yes = try move(["jdoe/*", "asmith", "--yes"])
            #expect(!yes.batch.dryRun && yes.batch.yes && yes.note.note == nil)
        }
    }
}
