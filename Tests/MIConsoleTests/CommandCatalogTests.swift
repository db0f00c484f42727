import Foundation
import MICommands
import Testing
@testable import MIConsole

@Suite("Command catalog")
struct CommandCatalogTests {
    @Test func everyRegisteredCommandYieldsAnEntry() throws {
        let catalog = try CommandCatalog(registry: CommandRegistry.commands)
        // (A key path on the existential metatypes crashes the 6.3.1 compiler: closures instead.)
        let registered: [String] = CommandRegistry.commands.map { $0.name }
        let cataloged: [String] = catalog.commands.map { $0.name }
        #expect(cataloged == registered)
        for type in CommandRegistry.commands {
            let entry = try #require(catalog.command(type.name))
            #expect(entry.abstract == type.configuration.abstract)
        }
    }

    @Test func theDumpHasTheVersionWeRead() throws {
        for type in CommandRegistry.commands {
            let dump = try CommandCatalog.dump(of: type)
            #expect(dump.serializationVersion == CommandCatalog.supportedSerializationVersion)
        }
    }

    @Test func argumentsComeFromTheDefinitions() throws {
        let catalog = try CommandCatalog(registry: CommandRegistry.commands)
        let users = try #require(catalog.command("users"))
        let role = try #require(users.arguments.first { $0.names.contains("--role") })
        #expect(role.kind == .option)
        #expect(Set(role.choices) == ["foreman", "technician", "support"])
        let move = try #require(catalog.command("move"))
        #expect(move.arguments.first?.valueName == "form")
        let importCommand = try #require(catalog.command("import"))
        #expect(importCommand.arguments.first { $0.kind == .positional }?.completion == .directories)
        #expect(importCommand.arguments.contains { $0.names == ["--dry-run"] })
        let policy = try #require(catalog.command("policy"))
        #expect(Set(policy.subcommands.map(\.name)) == ["show", "set"])
        let ics = try #require(catalog.command("notifications")?.arguments.first { $0.names.contains("--ics") })
        #expect(ics.completion == .files)
    }

    @Test func anotherSerializationVersionIsRefusedLoudly() {
        let dump = Data(#"{"serializationVersion": 1, "command": {"commandName": "x"}}"#.utf8)
        #expect {
            _ = try CommandCatalog.decode(dump, command: "x")
        } throws: { error in
            "\(error)".contains("serializationVersion 1")
        }
    }

    @Test func aMalformedDumpIsRefusedLoudly() {
        let dump = Data(#"{"serializationVersion": 0, "command": {"commandName": "x", "arguments": [{"kind": "option"}]}}"#.utf8)
        #expect(throws: CommandCatalog.DumpError.self) { _ = try CommandCatalog.decode(dump, command: "x") }
    }
}
