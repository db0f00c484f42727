import ArgumentParser
import MIDirectory
import MIStore

/// `comment FORM TEXT`: a foreman's general comment on a completed form. Comments accumulate;
/// none is ever edited away. A pattern (`'jdoe/*'`) or `--owner` comments on every completed
/// form chosen, after one confirmation.
public struct CommentCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "comment",
        abstract: "Add a foreman comment to a completed form.",
        discussion: """
            A pattern ('jdoe/*', 'jdoe/Generator*') or --owner (a uid or a glob; then give only \
            the text) comments on every completed form chosen (--state picks another state, which \
            the store then refuses): at the prompt it lists them and asks once; a script needs \
            --yes. --dry-run shows what would change and changes nothing.

            Examples:
              comment 6 'Bearing temperatures high, check next month'
              comment 'jdoe/*' 'Checked on site with jdoe'
              comment --owner jdoe 'Checked on site with jdoe' --dry-run
            """)
    public static let roles: Set<Role> = [.foreman]

    @Argument(help: ArgumentHelp("The form: its id, owner/name, or a pattern such as 'jdoe/*' (left out with --owner).",
                                 valueName: "form"))
    public var form: String?
    @Argument(help: ArgumentHelp("The comment.", valueName: "text"))
    public var text: String?
    @OptionGroup public var selection: FormSelectionOptions
    @OptionGroup public var note: NoteOption
    @OptionGroup public var batch: BatchOptions

    public init() {}

    /// The form or pattern, checked while the line is parsed.
    var pattern: FormPattern? { form.flatMap(FormPattern.init(argument:)) }

    public mutating func validate() throws {
        if text == nil, selection.owner != nil || selection.state != nil {
            // `comment --owner jdoe 'Checked'`: the one word given is the text.
            text = form
            form = nil
        }
        guard text != nil else { throw ValidationError("Missing expected argument '<text>'") }
        if let form, FormPattern(argument: form) == nil {
            throw ValidationError("The value '\(form)' is invalid for '<form>': give a numeric id, owner/name or a pattern")
        }
    }

    static let columns = [Column("form"), Column("author"), Column("at"), Column("text")]

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let text = self.text ?? ""
        let chosen = selection.selection(pattern.map { [$0] } ?? [])
        guard chosen.isSingleForm, case .form(let reference)? = pattern else {
            let forms = try chosen.forms(in: session, eligible: .completed)
            try BulkChange(
                verb: "comment", columns: [Column("id"), Column("owner"), Column("name")] + Self.columns.dropFirst(),
                change: { form in
                    try store.changes.comment(.id(form.id), text: text, author: session.user.uid, note: note.note,
                                      expectedVersion: form.version)
                },
                row: { form, comment in
                    [.int(form.id), .string(form.owner), .string(form.name), .string(comment.author), .time(comment.at),
                     .string(comment.text)]
                },
                question: { "add this comment to \($0) form(s)?" }
            ).run(forms, in: session, output: output, dryRun: batch.dryRun, yes: batch.yes)
            return
        }
        let comment = try session.changing(dryRun: batch.dryRun, output: output) {
            try store.changes.comment(reference, text: text, author: session.user.uid, note: note.note, expectedVersion: nil)
        }
        output.record(Self.columns,
                      [.string(reference.description), .string(comment.author), .time(comment.at), .string(comment.text)])
    }
}
