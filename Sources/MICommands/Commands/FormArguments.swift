import ArgumentParser
import MIStore

/// `FORM` as commands take it: a numeric id or `owner/name`. One definition, so help and
/// completion (value name `form`) are the same everywhere; a malformed reference fails while
/// the line is parsed, with the usage.
public struct FormArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The form: its id, or owner/name (quote names with spaces).", valueName: "form"))
    public var form: FormReference

    public init() {}
}

/// `FORM` of `restore`: the same syntax, but it names a form in the trash, so completion (value
/// name `trashed-form`) offers trashed forms.
public struct TrashedFormArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The trashed form: its id, or owner/name as it was trashed.", valueName: "trashed-form"))
    public var form: FormReference

    public init() {}
}

/// `--note TEXT`: the reason recorded with the change in the audit trail.
public struct NoteOption: ParsableArguments {
    @Option(help: ArgumentHelp("Why: recorded in the audit trail with the change.", valueName: "text"))
    public var note: String?

    public init() {}
}

extension FormState: ExpressibleByArgument {}
