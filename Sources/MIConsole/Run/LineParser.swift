import ArgumentParser
import MICommands

/// How a console line reaches swift-argument-parser: parsed by the named command's own type
/// (one command's argument tree per line instead of the registry's), wrapped in
/// `WithoutCompletionScriptCheck<C>`, which only tells the parser that the line is not a shell
/// asking for a completion script.
///
/// Why: before the command's own parse, argument-parser parses the line twice more for
/// `--generate-completion-script` (two more commands' definitions, two more decodes). A shell's
/// completion script makes no sense at the prompt; a command whose configuration names a
/// "super-command" skips that check (`CommandConfiguration._superCommandName`, public API). The
/// wrapper sets it for the parse only, so help and usage texts still come from the commands'
/// own configurations. It is the same parser for the prompt, scripts and `-c`; only the
/// completion-script check is skipped. (The definitions themselves are built once per command
/// type by the vendored argument-parser: Vendor/swift-argument-parser/PATCHES.md.)
enum LineParser {
    /// Parses `arguments` (the words after the command name) for `command`: the command (or the
    /// nested command the words name) or argument-parser's error, as `parseAsRoot` would.
    static func parse(_ command: any ConsoleCommand.Type, _ arguments: [String]) throws -> ParsableCommand {
        try parse(as: command, arguments)
    }

    private static func parse<C: ConsoleCommand>(as _: C.Type, _ arguments: [String]) throws -> ParsableCommand {
        let parsed = try WithoutCompletionScriptCheck<C>.parseAsRoot(arguments)
        if let wrapper = parsed as? WithoutCompletionScriptCheck<C> { return wrapper.command }
        return parsed  // a nested command (`policy set`) or argument-parser's help command
    }
}

/// `C`'s arguments under `C`'s configuration plus a super-command name: parsed as `C` is, but
/// without argument-parser's check for `--generate-completion-script` (see ``LineParser``).
/// Used for console lines and, unless it asks for a completion script, the command line.
public struct WithoutCompletionScriptCheck<C: ParsableCommand>: ParsableCommand {
    public static var configuration: CommandConfiguration {
        var configuration = C.configuration
        configuration._superCommandName = ""
        return configuration
    }

    @OptionGroup public var command: C

    public init() {}
}
