import ArgumentParser
import MICommands

/// How a console line reaches swift-argument-parser: parsed by the named command's own type with
/// `parseAsRoot` (one command's argument tree per line instead of the registry's). It is the same
/// parser for the prompt, scripts and `-c`.
///
/// A line never asks for a shell's completion script: a completion script makes no sense at the
/// prompt. A line with a word that could be `--generate-completion-script` is parsed wrapped in
/// `WithoutCompletionScriptCheck<C>`, which only tells the parser that it is not a shell asking
/// for one. Other lines need no wrapper: the vendored argument-parser does not look for that
/// request in arguments that cannot hold it (Vendor/swift-argument-parser/PATCHES.md), and the
/// wrapper's own decode cost a fifth of a `move` line's parse. (The definitions themselves are
/// built once per command type by the vendored argument-parser.)
enum LineParser {
    /// Parses `arguments` (the words after the command name) for `command`: the command (or the
    /// nested command the words name) or argument-parser's error, as `parseAsRoot` would.
    static func parse(_ command: any ConsoleCommand.Type, _ arguments: [String]) throws -> ParsableCommand {
        try parse(as: command, arguments)
    }

    private static func parse<C: ConsoleCommand>(as _: C.Type, _ arguments: [String]) throws -> ParsableCommand {
        guard mayAskForCompletionScript(arguments) else { return try C.parseAsRoot(arguments) }
        let parsed = try WithoutCompletionScriptCheck<C>.parseAsRoot(arguments)
        if let wrapper = parsed as? WithoutCompletionScriptCheck<C> { return wrapper.command }
        return parsed  // a nested command (`policy set`) or argument-parser's help command
    }

    /// Whether a word could be argument-parser's `--generate-completion-script` option (alone or
    /// with `=SHELL`).
    static func mayAskForCompletionScript(_ arguments: [String]) -> Bool {
        arguments.contains { $0.hasPrefix("--generate-completion-script") }
    }
}

/// `C`'s arguments under `C`'s configuration plus a super-command name: parsed as `C` is, but
/// without argument-parser's check for `--generate-completion-script` (see ``LineParser``).
/// Used for console lines that might ask for a completion script.
struct WithoutCompletionScriptCheck<C: ParsableCommand>: ParsableCommand {
    static var configuration: CommandConfiguration {
        var configuration = C.configuration
        configuration._superCommandName = ""
        return configuration
    }

    @OptionGroup var command: C

    init() {}
}
