import ArgumentParser
import MIDirectory
import MIStore

/// `move FORM UID`: reassign an incomplete form to another technician, renaming it on a name
/// collision and leaving the old owner a notice — all in one transaction.
public struct MoveCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Reassign an incomplete form to another technician.",
        discussion: """
            If the technician already has a form of that name, the moved form becomes 'Name (2)', \
            'Name (3)', ... (the smallest free number). The old and the new owner each get a notice \
            (shown at their next login) naming the form, who moved it in which role, and the --note. \
            The form's expiry counts from the move (unless 'policy set expiry-from created'); the \
            output shows when it expires now. Where the site keeps crews, a foreman moves forms \
            only between technicians of the crews he leads.

            Examples:
              move 12 asmith
              move 'jdoe/Pump station 4' asmith --note 'jdoe on leave'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @OptionGroup public var target: FormArgument
    @Argument(help: ArgumentHelp("The technician who gets the form.", valueName: "technician"))
    public var uid: String
    @OptionGroup public var note: NoteOption

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        // Both ends inside the foreman's crews (issue 22): the target is refused before the store
        // is asked; the store checks the form's owner, and the target again, in the move's transaction.
        try session.requireInCrews(uid)
        let technician = try session.technician(uid)
        let result = try session.store().move(target.form, to: technician.uid, actor: session.user.uid,
                                              actorRole: session.actingRole(Self.roles).rawValue, note: note.note,
                                              policyDefaults: session.config.policy.expiryPolicy)
        output.record([Column("id"), Column("from"), Column("to"), Column("name"), Column("renamed"), Column("moved"),
                       Column("expires")],
                      [.int(result.formId), .string(result.fromOwner), .string(result.toOwner), .string(result.newName),
                       .bool(result.renamed), .bool(result.moved), .time(result.expires)])
    }
}
