import ArgumentParser
import MIDirectory
import MIStore

/// `undo`: gives the forms of this session's last move (or bulk move) back to their owners,
/// under the names they had, while nothing else changed them since.
public struct UndoCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take this session's last move (or bulk move) back.",
        discussion: """
            Every form the last 'move' of this session moved goes back to the technician it came \
            from, under the name it had (renamed 'Name (2)' if that technician has one of that name \
            now) and with the expiry it had before the move: the move restarted its clock, the undo \
            gives the old one back. Each technician gets one notice, naming his forms, that the moves were \
            undone; the audit rows record the expiry before and after. Refused, changing nothing, \
            when any of those forms changed since (another move, a comment, an import: its version \
            is not the one the move left). All forms or none. At the prompt it lists what will \
            happen and asks; a script needs --yes. --dry-run only lists it.

            Examples:
              undo
              undo --note 'wrong technician'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @OptionGroup public var note: NoteOption
    @OptionGroup public var batch: BatchOptions

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        guard let last = session.recall.lastMoves, !last.isEmpty else {
            throw CommandError.failed("nothing to undo: this session has moved no form (or its last move was undone)")
        }
        let store = try session.store()
        let forms = try Self.unchanged(last, store: store.listing)
        for owner in Set(last.map(\.fromOwner)).sorted() { try session.requireInCrews(owner) }
        let role = session.actingRole(Self.roles).rawValue
        let policy = session.config.policy.expiryPolicy
        let reason = note.note ?? "undo of a move by \(session.user.uid)"
        let moves = Dictionary(last.map { ($0.formId, $0) }, uniquingKeysWith: { first, _ in first })
        var moved: [MoveResult] = []
        try BulkChange(
            verb: "undo", columns: MoveCommand.bulkColumns,
            change: { form in
                let move = moves[form.id]
                return try store.changes.move(.id(form.id), to: move?.fromOwner ?? form.owner, actor: session.user.uid,
                                      actorRole: role, note: reason, expectedVersion: form.version,
                                      policyDefaults: policy, undoing: move)
            },
            row: { _, result in
                [.int(result.formId), .string(result.fromOwner), .string(result.toOwner), .string(result.oldName),
                 .string(result.newName), .bool(result.renamed), Value.time(result.expires)]
            },
            question: { "give \($0) form(s) back to where the last move took them from?" },
            atomic: true,
            // Each technician hears once that the moves were undone, in the undo's transaction.
            afterChanges: { results in
                try store.changes.tellOfMoves(results, actor: session.user.uid, actorRole: role, note: reason, undone: true)
            }
        ).run(forms, in: session, output: output, dryRun: batch.dryRun, yes: batch.yes) { _, result in moved.append(result) }
        if !moved.isEmpty {
            for result in moved { _ = session.recall.moved(result) }
            session.recall.lastMoves = nil
        }
    }

    /// The moved forms as they are now, if each is still where the move left it (same owner,
    /// same version); otherwise the refusal, naming the first form that changed.
    static func unchanged(_ moves: [MoveResult], store: any StoreListing) throws -> [SelectedForm] {
        try moves.map { move in
            let now: Form
            do {
                now = try store.form(.id(move.formId), owner: nil)
            } catch let error as StoreError where error.kind == .notFound {
                throw CommandError.failed("cannot undo: form \(move.formId) '\(move.newName)' is no longer in the store "
                                          + "(trashed or purged since the move); nothing was undone")
            }
            guard now.owner == move.toOwner, now.version == move.version else {
                let what = now.owner != move.toOwner ? "was moved to \(now.owner)"
                                                     : "changed (version \(now.version), the move left version \(move.version))"
                throw CommandError.failed("cannot undo: form \(move.formId) '\(move.newName)' \(what) since the move; "
                                          + "nothing was undone")
            }
            return SelectedForm(now)
        }
    }
}
