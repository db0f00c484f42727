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

            Examples:
              submit 12
              submit 'jdoe/Generator monthly' --yes
            """)
    public static let roles: Set<Role> = [.foreman]

    @OptionGroup public var target: FormArgument
    @OptionGroup public var note: NoteOption
    @Flag(help: "Do not ask for confirmation.")
    public var yes = false

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let reference = try target.reference()
        let form = try store.form(reference)
        // Only a real change asks: an incomplete form is refused by the store, a submitted one is a no-op.
        if form.state == .completed {
            try session.confirm("submit form \(form.id) '\(form.name)' of \(form.owner)? "
                                + "Only a foreman's 'reopen' takes it back.", yes: yes)
        }
        let result = try store.submit(.id(form.id), actor: session.user.uid, note: note.note,
                                      expectedVersion: form.version)
        output.record([Column("id"), Column("owner"), Column("name"), Column("state"), Column("alreadySubmitted")],
                      [.int(result.formId), .string(result.owner), .string(result.name), .string("submitted"),
                       .bool(result.alreadySubmitted)])
    }
}
