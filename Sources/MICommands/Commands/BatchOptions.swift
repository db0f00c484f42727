import ArgumentParser

/// `--dry-run` and `--yes` of the commands that change many forms at once (`import`, `expire`,
/// `purge`): one declaration, one help text, one meaning.
///
/// `--dry-run` lists what would change and changes nothing (it reads only, so it never holds the
/// store's write lock); `--yes` skips the question, which a script needs because nobody can answer it.
public struct BatchOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "List what would change; change nothing.")
    public var dryRun = false
    @Flag(help: "Do not ask for confirmation (a script needs this to change anything).")
    public var yes = false

    public init() {}
}
