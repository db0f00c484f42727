import ArgumentParser

/// Every console command, in the order `help` lists them. Parsing, `help`, completion and the
/// permission check all read this one list.
public enum CommandRegistry {
    public static let commands: [any ConsoleCommand.Type] = [
        HelpCommand.self,
        WhoamiCommand.self,
        UsersCommand.self,
        FormsCommand.self,
        ShowCommand.self,
        MoveCommand.self,
        CommentCommand.self,
        SubmitCommand.self,
        NoticesCommand.self,
        ImportCommand.self,
        ExportCommand.self,
        AuditCommand.self,
        ExpireCommand.self,
        TrashCommand.self,
        RestoreCommand.self,
        PurgeCommand.self,
        PolicyCommand.self,
        NotificationsCommand.self,
        CheckCommand.self,
        OrphansCommand.self,
        ReopenCommand.self,
    ]

    public static func command(named name: String) -> (any ConsoleCommand.Type)? {
        commands.first { $0.name == name }
    }

    /// The command the leading words name, descending into subcommands (`policy set`); words
    /// after the deepest command are ignored.
    public static func command(path words: [String]) -> (any ConsoleCommand.Type)? {
        guard let first = words.first, var type = command(named: first) else { return nil }
        for word in words.dropFirst() {
            guard let sub = type.configuration.subcommands
                .compactMap({ $0 as? any ConsoleCommand.Type }).first(where: { $0.name == word }) else { break }
            type = sub
        }
        return type
    }
}

/// The root the console hands each tokenized line to (`parseAsRoot`); never run itself.
public struct ConsoleLine: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "",
        subcommands: CommandRegistry.commands.map { $0 as ParsableCommand.Type })
    public init() {}
}
