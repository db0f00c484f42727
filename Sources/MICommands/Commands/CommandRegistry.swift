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
}

/// The root the console hands each tokenized line to (`parseAsRoot`); never run itself.
public struct ConsoleLine: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "",
        subcommands: CommandRegistry.commands.map { $0 as ParsableCommand.Type })
    public init() {}
}
