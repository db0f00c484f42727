import ArgumentParser
import Foundation

/// Every console command, in the order `help` lists them. Parsing, `help`, completion and the
/// permission check all read this one list.
public enum CommandRegistry {
    public static let commands: [any ConsoleCommand.Type] = [
        HelpCommand.self,
        WhoamiCommand.self,
        UsersCommand.self,
        TeamsCommand.self,
        RefreshCommand.self,
        TodayCommand.self,
        FormsCommand.self,
        WorkloadCommand.self,
        ShowCommand.self,
        FindCommand.self,
        ReportCommand.self,
        MediaCommand.self,
        MoveCommand.self,
        UndoCommand.self,
        CommentCommand.self,
        SubmitCommand.self,
        DeliverCommand.self,
        DeliveriesCommand.self,
        RemindCommand.self,
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
        StoreCommand.self,
        OrphansCommand.self,
        ReopenCommand.self,
        SetCommand.self,
    ]

    /// Words the console's run loop handles itself, besides the commands: `help` lists them,
    /// completion offers them, a typo is matched against them. `aliases` run the same.
    public static let builtins: [(name: String, aliases: [String], abstract: String)] = [
        ("source", ["\\i"], "Run the commands in a script file (nests up to 16 deep)."),
        ("\\ir", [], "\\ir FILE: source FILE, a relative name found beside the script being run."),
        ("quit", ["exit", "\\q"], "Leave the console (also Ctrl-D)."),
        ("\\x", [], "Expanded display, as in psql: \\x toggles it, \\x on|off|auto sets it (as 'set expanded')."),
        // psql's backslash commands for scripts (docs/user-guide.md, "Scripts").
        ("\\set", [], "\\set NAME VALUE...: set a variable, used as :NAME, :'NAME' (quoted) or :{?NAME} (is it set); \\set alone lists them."),
        ("\\unset", [], "\\unset NAME...: remove variables."),
        ("\\if", [], "\\if EXPR: run the lines up to \\elif, \\else or \\endif only when EXPR is true (true/false, on/off, yes/no, 1/0, or a comparison: :n > 0 AND :'state' = 'held')."),
        ("\\let", [], "\\let NAME EXPR: set NAME to the value of EXPR (pgbench's expressions: :n + 1, :n > 0)."),
        ("\\elif", [], "\\elif EXPR: the next branch of an \\if, run when no branch above ran and EXPR is true."),
        ("\\else", [], "\\else: the branch of an \\if run when no branch above ran."),
        ("\\endif", [], "\\endif: ends an \\if."),
        ("\\gset", [], "COMMAND \\gset [PREFIX]: run COMMAND and set a variable per column of its one-row result (PREFIX + column)."),
        ("\\o", [], "\\o FILE: send the results that follow to FILE (\\o >>FILE adds to it); \\o alone: back to stdout."),
        ("\\echo", [], "\\echo [-n] TEXT: write TEXT to stdout (-n: no newline after it)."),
        ("\\qecho", [], "\\qecho [-n] TEXT: write TEXT where results go (the \\o file)."),
        ("\\warn", [], "\\warn [-n] TEXT: write TEXT to stderr."),
        ("\\watch", [], "\\watch [SECONDS] [COUNT]: run the previous command again every SECONDS (2), COUNT times or until Ctrl-C."),
        ("\\timing", [], "\\timing [on|off]: show how long each command took (\\timing alone toggles)."),
        ("\\?", [], "\\?: list these backslash commands."),
        ("\\h", [], "\\h [COMMAND]: the same as help [COMMAND]."),
    ]

    /// The backslash commands (`\?` lists them), `\q` included.
    public static var backslashCommands: [(name: String, abstract: String)] {
        builtins.filter { $0.name.hasPrefix("\\") }.map { ($0.name, $0.abstract) }
            + [("\\q", "\\q: leave the console, as quit.")]
    }

    /// A console word's help, the one line `help` lists it with: `help source`, `help \watch`
    /// (which the tokenizer hands over as `watch`: a backslash quotes the next character).
    public static func builtinHelp(_ word: String) -> String? {
        guard let name = builtin(named: word) ?? builtin(named: "\\" + word),
              let entry = builtins.first(where: { $0.name == name }) else { return nil }
        let aliases = entry.aliases.isEmpty ? "" : " (also \(entry.aliases.joined(separator: ", ")))"
        return "\(entry.name)\(aliases): \(entry.abstract)"
    }

    /// The builtin `word` names (by its name or an alias), or nil.
    public static func builtin(named word: String) -> String? {
        builtins.first { $0.name == word || $0.aliases.contains(word) }?.name
    }

    /// A command's help: usage, options and examples from its definition, and the roles that may
    /// run it. The one text both `help CMD` and `CMD --help` show; nil when the words name no
    /// command. Words after the deepest command named are ignored (`policy set --help`).
    public static func helpText(for words: [String]) -> String? {
        guard let root = words.first.flatMap(command(named:)), let type = command(path: words) else { return nil }
        var text = root.helpMessage(for: type)
        while text.hasSuffix("\n") { text.removeLast() }
        return text + "\n\n" + displayOptionsHelp + "\n\nROLES: " + type.roles.sorted().map(\.rawValue).joined(separator: ", ")
    }

    /// The display options every command takes (``DisplaySettings/perCommandOptions``), listed
    /// in each command's help as its own options are.
    static let displayOptionsHelp: String = {
        let options = DisplaySettings.perCommandOptions
        let width = options.map(\.usage.count).max() ?? 0
        let lines = options.map { "  " + $0.usage.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.help }
        return (["DISPLAY OPTIONS (any command, for this command only):"] + lines).joined(separator: "\n")
    }()

    /// What an unknown command word gets, at the prompt and after `help`: a "did you mean" for a
    /// typo of a command or a builtin (`mvoe` → `move`).
    public static func unknownCommandMessage(_ typed: String) -> String {
        let known = commands.map { $0.name } + builtins.map(\.name)
        if let guess = Spelling.closest(to: typed, among: known) {
            return "unknown command '\(typed)'; did you mean '\(guess)'? (type 'help' for the list)"
        }
        return "unknown command '\(typed)' (type 'help' for the list)"
    }

    /// What a mistyped subcommand word gets (`policy sett`): a "did you mean" among the
    /// command's subcommands, as a command word gets among the commands; nil when the second
    /// word is no near miss of a subcommand (an option, or an argument of the default one).
    public static func unknownSubcommandMessage(_ words: [String]) -> String? {
        guard words.count > 1, let root = command(named: words[0]) else { return nil }
        let typed = words[1]
        let names = subcommands(of: root).map { $0.name }
        guard !names.isEmpty, !typed.hasPrefix("-"), !names.contains(typed), typed != "help",
              let guess = Spelling.closest(to: typed, among: names) else { return nil }
        return "\(words[0]): unknown subcommand '\(typed)'; did you mean '\(guess)'? (see 'help \(words[0])')"
    }

    /// The console commands nested under `type` (`policy set`, `policy show`).
    public static func subcommands(of type: any ConsoleCommand.Type) -> [any ConsoleCommand.Type] {
        type.configuration.subcommands.compactMap { $0 as? any ConsoleCommand.Type }
    }

    public static func command(named name: String) -> (any ConsoleCommand.Type)? {
        byName[name]
    }

    /// ``commands`` by name (the first of a name, should two share one): every line looks its
    /// command up, and each name asked for builds that command's whole configuration.
    private static let byName: [String: any ConsoleCommand.Type] =
        Dictionary(commands.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The command the leading words name, descending into subcommands (`policy set`); words
    /// after the deepest command are ignored.
    public static func command(path words: [String]) -> (any ConsoleCommand.Type)? {
        guard let first = words.first, var type = command(named: first) else { return nil }
        for word in words.dropFirst() {
            guard let sub = subcommands(of: type).first(where: { $0.name == word }) else { break }
            type = sub
        }
        return type
    }
}
