import ArgumentParser
import MIDirectory
import MIStore

/// `restore FORM`: a form back from the trash to its owner, as incomplete.
public struct RestoreCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Bring a form back from the trash to its owner.",
        discussion: """
            The form is incomplete again and its expiry counts from now. If the owner has a form \
            of that name meanwhile, it is renamed 'Name (2)' (the smallest free number), as with \
            move. FORM is the id shown by 'trash', or owner/name as it was trashed.

            Examples:
              restore 11
              restore 'jdoe/Hydrant 3 annual' --note 'expired during leave'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @OptionGroup public var target: TrashedFormArgument
    @OptionGroup public var note: NoteOption
    @OptionGroup public var dryRun: DryRunOption

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let result = try session.changing(dryRun: dryRun.dryRun, output: output) {
            try session.store().changes.restore(target.form, actor: session.user.uid, note: note.note)
        }
        if let problem = try? session.ownerProblem(result.owner) {
            output.warning("\(problem): give the form to a technician with 'move \(result.formId) <technician>'")
        }
        output.record([Column("id"), Column("owner"), Column("name"), Column("renamed"), Column("state")],
                      [.int(result.formId), .string(result.owner), .string(result.newName), .bool(result.renamed),
                       .string(FormState.incomplete.rawValue)])
    }
}
