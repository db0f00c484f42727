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

            A pattern ('jdoe/*', 'jdoe/Pump*': * any run of characters, ? one) moves every \
            incomplete form it matches: at the prompt it first lists what will happen (the names \
            after renames) and asks once; a script needs --yes. --dry-run lists it and changes \
            nothing. 'undo' takes the last move back. When the form was moved by somebody else \
            since this session last showed it ('forms', 'show'), the move says so.

            Examples:
              move 12 asmith
              move 'jdoe/Pump station 4' asmith --note 'jdoe on leave'
              move 'jdoe/*' asmith --note 'jdoe on sick leave'
              move 'jdoe/Pump*' asmith --dry-run
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The form: its id, owner/name, or a pattern such as 'jdoe/*' or 'jdoe/Pump*'.",
                                 valueName: "form"))
    public var form: FormPattern
    @Argument(help: ArgumentHelp("The technician who gets the form.", valueName: "technician"))
    public var uid: String
    @OptionGroup public var note: NoteOption
    @OptionGroup public var batch: BatchOptions

    public init() {}

    static let columns = [Column("id"), Column("from"), Column("to"), Column("name"), Column("renamed"), Column("moved"),
                          Column("expires")]
    static let bulkColumns = [Column("id"), Column("from"), Column("to"), Column("was"), Column("name"), Column("renamed"),
                              Column("expires")]

    public func run(in session: Session, output: OutputSink) throws {
        // Both ends inside the foreman's crews (issue 22): the target is refused before the store
        // is asked; the store checks the form's owner, and the target again, in the move's transaction.
        try session.requireInCrews(uid)
        let technician = try session.technician(uid)
        let store = try session.store()
        let role = session.actingRole(Self.roles).rawValue
        let policy = session.config.policy.expiryPolicy
        if case .form(let reference) = form {
            let result = try session.changing(dryRun: batch.dryRun, output: output) {
                try store.move(reference, to: technician.uid, actor: session.user.uid, actorRole: role,
                               note: note.note, expectedVersion: nil, policyDefaults: policy)
            }
            if !batch.dryRun { Self.remember([result], in: session, output: output) }
            output.record(Self.columns,
                          [.int(result.formId), .string(result.fromOwner), .string(result.toOwner), .string(result.newName),
                           .bool(result.renamed), .bool(result.moved), Value.time(result.expires)])
            return
        }
        // A pattern: its incomplete forms (the only ones a move takes), previewed and confirmed.
        let forms = try FormSelection(patterns: [form]).forms(in: session, eligible: .incomplete)
        var moved: [MoveResult] = []
        defer { if !moved.isEmpty { Self.remember(moved, in: session, output: output) } }
        try BulkChange(
            verb: "move", columns: Self.bulkColumns,
            change: { form in
                try store.move(.id(form.id), to: technician.uid, actor: session.user.uid, actorRole: role, note: note.note,
                               expectedVersion: form.version, policyDefaults: policy)
            },
            row: { _, result in
                [.int(result.formId), .string(result.fromOwner), .string(result.toOwner), .string(result.oldName),
                 .string(result.newName), .bool(result.renamed), Value.time(result.expires)]
            },
            question: { "move \($0) form(s) matching '\(form)' to \(technician.uid)?" }
        ).run(forms, in: session, output: output, dryRun: batch.dryRun, yes: batch.yes) { _, result in moved.append(result) }
    }

    /// After moves were saved: `undo` may take them back, and each form moved since this session
    /// last showed it gets its warning.
    static func remember(_ results: [MoveResult], in session: Session, output: OutputSink) {
        for result in results {
            if let warning = session.recall.moved(result) { output.warning(warning) }
        }
        let moved = results.filter(\.moved)
        if !moved.isEmpty { session.recall.lastMoves = moved }
    }
}
