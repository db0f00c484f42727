import ArgumentParser
import MIDirectory
import MIStore

/// `submit FORM`: a reviewed completed form becomes submitted (the field app's upload).
/// Submitting again is a harmless no-op.
public struct SubmitCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Mark a reviewed completed form as submitted.",
        discussion: "Examples:\n  submit 12\n  submit 'jdoe/Generator monthly'")
    public static let roles: Set<Role> = [.foreman]

    @OptionGroup public var target: FormArgument
    @OptionGroup public var note: NoteOption

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let result = try session.store().submit(target.form, actor: session.user.uid, note: note.note)
        output.record([Column("id"), Column("owner"), Column("name"), Column("state"), Column("alreadySubmitted")],
                      [.int(result.formId), .string(result.owner), .string(result.name), .string("submitted"),
                       .bool(result.alreadySubmitted)])
    }
}
