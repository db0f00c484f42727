import MICommands

/// Decides what the word under the cursor can become, from the command catalog and the
/// session's dynamic values (user ids, form names). Pure logic; readline glue lives elsewhere.
///
/// `@unchecked Sendable`: it sits in readline's global completion state, but readline calls
/// back only on the thread that called `readline()`, the same one that runs commands.
struct CompletionEngine: @unchecked Sendable {
    /// What a value of a given kind completes from; supplied by the session.
    struct Sources {
        /// User ids starting with the prefix; with `techniciansOnly`, only technicians (who may
        /// hold forms). Asked per Tab: the directory answers with a prefix search.
        var userIDs: (_ prefix: String, _ techniciansOnly: Bool) -> [String] = { _, _ in [] }
        /// Form references (`owner/name`) starting with the prefix, of forms in use or, with
        /// `trashed`, of forms in the trash.
        var formReferences: (_ prefix: String, _ trashed: Bool) -> [String] = { _, _ in [] }
        /// The names of the crews the user may see (`--team`, `teams show`).
        var crewNames: () -> [String] = { [] }
        /// The script variables set (`:NAME`, `\unset NAME`).
        var variableNames: () -> [String] = { [] }
    }

    enum Result: Equatable {
        case words([String])
        /// Let readline complete file names.
        case files
    }

    /// Built on the first Tab, not at start-up: reading every command's definitions was a
    /// fifth of the time to the first prompt (docs/benchmarks.md, "Figures behind the code").
    private let makeCatalog: () -> CommandCatalog
    var catalog: CommandCatalog { makeCatalog() }
    let sources: Sources

    init(catalog: @autoclosure @escaping () -> CommandCatalog, sources: Sources) {
        makeCatalog = catalog
        self.sources = sources
    }

    /// `line` is the text before the cursor; `word` is the (unquoted) word being completed.
    func complete(line: String, word: String) -> Result {
        // `:NAME` anywhere: a variable's name (the quoted and `{?` forms are typed whole).
        if word.hasPrefix(":"), !word.hasPrefix(":'"), !word.hasPrefix(":{") {
            return .words(sources.variableNames().map { ":" + $0 }.filter { $0.hasPrefix(word) })
        }
        // The command being typed: the last of the line (after psql's `\\`), read as the run
        // loop reads it; an open quote (`show 'jdoe/Pump st`) is the word under the cursor.
        let lexed = LineLexer.lex(line)
        guard let typing = lexed.commands.last, typing.gset == nil else { return .words([]) }
        var before = (typing.meta.map { [$0] } ?? []) + typing.words.map(\.written)
        if lexed.endsInWord, !before.isEmpty { before.removeLast() }

        guard let commandName = before.first else {
            let names = catalog.commands.map(\.name) + CommandRegistry.builtins.map(\.name) + ["\\q"]
            return .words(names.filter { $0.hasPrefix(word) }.sorted())
        }
        if ["source", "\\o"].contains(commandName) { return .files }
        if ["\\unset", "\\set"].contains(commandName) && before.count == 1 {
            return .words(sources.variableNames().filter { $0.hasPrefix(word) })
        }
        if commandName.hasPrefix("\\") && commandName != "\\h" {
            if commandName == "\\timing" && before.count == 1 { return .words(["off", "on"].filter { $0.hasPrefix(word) }) }
            return .words([])
        }
        if commandName == "help" || commandName == "\\h" {
            // `help policy set`: command names, then that command's subcommands.
            var choices = catalog.commands
            for typed in before.dropFirst() {
                guard let command = choices.first(where: { $0.name == typed }) else { return .words([]) }
                choices = command.subcommands
            }
            return .words(choices.map(\.name).filter { $0.hasPrefix(word) }.sorted())
        }
        guard var command = catalog.command(commandName) else { return .words([]) }

        // A nested command (`policy set`): descend through the subcommand names typed so far;
        // right after the parent, its subcommands complete.
        var typed = before.dropFirst()
        while let next = typed.first, let sub = command.subcommands.first(where: { $0.name == next }) {
            command = sub
            typed = typed.dropFirst()
        }
        if !command.subcommands.isEmpty, typed.isEmpty, !word.hasPrefix("-") {
            return .words(command.subcommands.map(\.name).filter { $0.hasPrefix(word) }.sorted())
        }

        // Walk the words typed so far to know whether an option is waiting for its value and
        // which positional comes next.
        var positionalIndex = 0
        var pendingOption: CommandCatalog.Argument?
        var pendingDisplayValues: [String]?
        for token in typed {
            if pendingOption != nil || pendingDisplayValues != nil { pendingOption = nil; pendingDisplayValues = nil; continue }
            if let display = DisplaySettings.perCommandOptions.first(where: { $0.words.contains(token) }) {
                pendingDisplayValues = display.values
                continue
            }
            if token.hasPrefix("-"), let option = command.arguments.first(where: { $0.names.contains(token) }) {
                if option.kind == .option { pendingOption = option }
                continue
            }
            positionalIndex += 1
        }
        if let pendingOption { return values(for: pendingOption, word: word) }
        if let pendingDisplayValues { return .words(pendingDisplayValues.filter { $0.hasPrefix(word) }) }
        if word.hasPrefix("-") {
            let used = Set(before)
            let names = command.arguments.filter { $0.kind != .positional }
                .filter { $0.isRepeating || used.isDisjoint(with: $0.names) }
                .flatMap(\.names).filter { $0.hasPrefix("--") || $0.count == 2 }
            // The display options every command takes.
            let display = DisplaySettings.perCommandOptions.map { $0.words[0] }.filter { !before.contains($0) }
            return .words((names + display).filter { $0.hasPrefix(word) }.sorted())
        }
        let positionals = command.arguments.filter { $0.kind == .positional }
        guard !positionals.isEmpty else { return .words([]) }
        let argument = positionalIndex < positionals.count ? positionals[positionalIndex]
            : (positionals.last!.isRepeating ? positionals.last! : nil)
        guard let argument else { return .words([]) }
        return values(for: argument, word: word)
    }

    private func values(for argument: CommandCatalog.Argument, word: String) -> Result {
        if !argument.choices.isEmpty { return .words(argument.choices.filter { $0.hasPrefix(word) }) }
        // What the definition declares first (`completion: .directory`), then the value name.
        switch argument.completion {
        case .list(let values): return .words(values.filter { $0.hasPrefix(word) })
        case .files, .directories: return .files
        case .none, .unsupported: break
        }
        switch argument.valueName {
        case "uid": return .words(sources.userIDs(word, false).filter { $0.hasPrefix(word) }.sorted())
        case "technician": return .words(sources.userIDs(word, true).filter { $0.hasPrefix(word) }.sorted())
        case "form": return .words(sources.formReferences(word, false))
        case "trashed-form": return .words(sources.formReferences(word, true))
        case "team": return .words(sources.crewNames().filter { $0.hasPrefix(word) }.sorted())
        case "file", "dir", "path": return .files
        default: return .words([])
        }
    }
}
