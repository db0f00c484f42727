import ArgumentParser
import MIDirectory
import MIStore

/// `submit FORM`: a reviewed completed form becomes submitted (the field app's upload).
/// A one-way step, so it asks first at the prompt and needs `--yes` in a script.
/// Submitting again is a harmless no-op.
public struct SubmitCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Mark a reviewed completed form as submitted.",
        discussion: """
            Submitting is one-way for the technician: only a foreman's 'reopen' takes the form \
            back. So it names the form and asks first at the prompt; a script needs --yes.

            Several forms, a pattern ('jdoe/*') or --owner (a uid or a glob) submit every \
            completed form chosen (--state picks another state, which the store then refuses): \
            at the prompt it lists them and asks once. --dry-run lists what would change and \
            changes nothing.

            Examples:
              submit 6
              submit 'jdoe/Generator monthly' --yes
              submit 6 7 9
              submit --owner jdoe
              submit 'jdoe/Generator*' --dry-run
            """)
    public static let roles: Set<Role> = [.foreman]

    @Argument(help: ArgumentHelp("Forms: ids, owner/name, or patterns such as 'jdoe/*'.", valueName: "form"))
    public var forms: [FormPattern] = []
    @OptionGroup public var selection: FormSelectionOptions
    @OptionGroup public var note: NoteOption
    @OptionGroup public var batch: BatchOptions

    public init() {}

    public func validate() throws {
        if forms.isEmpty && selection.owner == nil && selection.state == nil {
            throw ValidationError("name a form, a pattern, --owner or --state")
        }
    }

    static let columns = [Column("id"), Column("owner"), Column("name"), Column("state"), Column("alreadySubmitted")]

    static func values(_ result: SubmitResult) -> [Value] {
        [.int(result.formId), .string(result.owner), .string(result.name), .string("submitted"),
         .bool(result.alreadySubmitted)]
    }

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let chosen = selection.selection(forms)
        guard chosen.isSingleForm, case .form(let reference) = forms[0] else {
            let forms = try chosen.forms(in: session, eligible: .completed)
            try BulkChange(
                verb: "submit", columns: Self.columns,
                change: { form in
                    try store.changes.submit(.id(form.id), actor: session.user.uid, note: note.note, expectedVersion: form.version)
                },
                row: { _, result in Self.values(result) },
                question: { "submit \($0) form(s)? Only a foreman's 'reopen' takes them back." }
            ).run(forms, in: session, output: output, dryRun: batch.dryRun, yes: batch.yes)
            return
        }
        let form = try store.listing.form(reference)
        // Only a real change asks: an incomplete form is refused by the store, a submitted one is a no-op.
        if form.state == .completed && !batch.dryRun {
            try session.confirm("submit form \(form.id) '\(form.name)' of \(form.owner)? "
                                + "Only a foreman's 'reopen' takes it back.", yes: batch.yes)
        }
        let result = try session.changing(dryRun: batch.dryRun, output: output) {
            try store.changes.submit(.id(form.id), actor: session.user.uid, note: note.note, expectedVersion: form.version)
        }
        output.record(Self.columns, Self.values(result))
    }
}
