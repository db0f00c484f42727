import ArgumentParser

/// `--dry-run` and `--yes` of the commands that change many forms at once (`import`, `expire`,
/// `purge`, and `move`, `comment`, `submit`, `undo` with a selection): one declaration, one help
/// text, one meaning.
///
/// `--dry-run` lists what would change and changes nothing (`import`, `expire` and `purge` only
/// read; the others make their changes in a transaction that is rolled back, ``BulkChange``);
/// `--yes` skips the question, which a script needs because nobody can answer it.
public struct BatchOptions: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "List what would change; change nothing.")
    public var dryRun = false
    @Flag(help: "Do not ask for confirmation (a script needs this to change anything).")
    public var yes = false

    public init() {}
}
