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
            nothing. Several technicians, comma-separated ('move jdoe/* zangstrom,u00010'), share \
            a pattern's forms: in turn, or with --balance each form to the one with the fewest \
            incomplete forms at that point; one preview, one question, one notice per technician, \
            and one 'undo' takes the whole handover back. 'undo' takes the last move back. When the form was moved by somebody else \
            since this session last showed it ('forms', 'show'), the move says so.

            Examples:
              move 12 zangstrom
              move 'jdoe/Pump station 4' zangstrom --note 'jdoe on leave'
              move 'jdoe/*' zangstrom --note 'jdoe on sick leave'
              move 'jdoe/Pump*' u00010 --dry-run
              move 'jdoe/*' zangstrom,u00010 --balance --note 'jdoe on sick leave'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The form: its id, owner/name, or a pattern such as 'jdoe/*' or 'jdoe/Pump*'.",
                                 valueName: "form"))
    public var form: FormPattern
    @Argument(help: ArgumentHelp("The technician who gets the form; for a pattern, several (comma-separated) share them.",
                                 valueName: "technician"))
    public var uid: String
    @Flag(help: "With several technicians: each form to the one with the fewest incomplete forms, not in turn.")
    public var balance = false
    @OptionGroup public var note: NoteOption
    @OptionGroup public var batch: BatchOptions

    public init() {}

    /// The technicians named, in the order given (`zangstrom,u00010`).
    var targets: [String] {
        // One technician with nothing to trim, as every line of a move script names: the name
        // as given, without splitting and copying it (what the split and trim would give).
        let scalars = uid.unicodeScalars
        if let first = scalars.first, let last = scalars.last, !Substring.isBlank(first), !Substring.isBlank(last),
           !uid.utf8.contains(UInt8(ascii: ",")) {
            return [uid]
        }
        return uid.split(separator: ",").map(\.trimmingBlanks)
    }

    public func validate() throws {
        let targets = self.targets
        guard !targets.isEmpty, !targets.contains(where: \.isEmpty) else {
            throw ValidationError("give a technician, or several separated by commas ('zangstrom,u00010')")
        }
        guard targets.count < 2 || Set(targets.map { $0.lowercased() }).count == targets.count else {
            throw ValidationError("a technician is named twice")
        }
        if targets.count > 1, case .form = form {
            throw ValidationError("one form goes to one technician; several share the forms of a pattern ('jdoe/*')")
        }
        if balance, targets.count < 2 { throw ValidationError("--balance spreads forms over several technicians: name two or more") }
    }

    static let columns = [Column("id"), Column("from"), Column("to"), Column("name"), Column("renamed"), Column("moved"),
                          Column("expires")]
    static let bulkColumns = [Column("id"), Column("from"), Column("to"), Column("was"), Column("name"), Column("renamed"),
                              Column("expires")]

    public func run(in session: Session, output: OutputSink) throws {
        // Both ends inside the foreman's crews: the target is refused before the store
        // is asked; the store checks the form's owner, and the target again, in the move's transaction.
        let targets = self.targets
        for target in targets { try session.requireInCrews(target) }
        let technicians = try targets.map { try session.technician($0) }
        let technician = technicians[0]
        let store = try session.store()
        let role = session.actingRole(Self.roles).rawValue
        let policy = session.config.policy.expiryPolicy
        if case .form(let reference) = form {
            let result: MoveResult
            do {
                result = try session.changing(dryRun: batch.dryRun, output: output) {
                    try store.changes.move(reference, to: technician.uid, actor: session.user.uid, actorRole: role,
                                   note: note.note, expectedVersion: nil, policyDefaults: policy)
                }
            } catch let error as StoreError where error.kind == .notFound {
                // A form moved or trashed since: where it went.
                throw FindCommand.pointing(error, reference, in: session)
            }
            if !batch.dryRun { Self.remember([result], in: session, output: output) }
            output.record(Self.columns,
                          [.int(result.formId), .string(result.fromOwner), .string(result.toOwner), .string(result.newName),
                           .bool(result.renamed), .bool(result.moved), Value.time(result.expires)])
            return
        }
        // A pattern: its incomplete forms (the only ones a move takes), previewed and confirmed.
        let forms = try FormSelection(patterns: [form]).forms(in: session, eligible: .incomplete)
        let receiver = try Self.receivers(of: forms, among: technicians.map(\.uid), balance: balance, in: session)
        let receivers = technicians.map(\.uid).joined(separator: ", ")
        var moved: [MoveResult] = []
        defer { if !moved.isEmpty { Self.remember(moved, in: session, output: output) } }
        try BulkChange(
            verb: "move", columns: Self.bulkColumns,
            change: { form in
                try store.changes.move(.id(form.id), to: receiver[form.id] ?? technician.uid, actor: session.user.uid, actorRole: role,
                               note: note.note, expectedVersion: form.version, policyDefaults: policy, undoing: nil)
            },
            row: { _, result in
                [.int(result.formId), .string(result.fromOwner), .string(result.toOwner), .string(result.oldName),
                 .string(result.newName), .bool(result.renamed), Value.time(result.expires)]
            },
            question: { "move \($0) form(s) matching '\(form)' to \(receivers)?" },
            // Each technician hears of the handover once, with every form of it.
            afterChanges: { results in
                try store.changes.tellOfMoves(results, actor: session.user.uid, actorRole: role, note: note.note, undone: false)
            }
        ).run(forms, in: session, output: output, dryRun: batch.dryRun, yes: batch.yes) { _, result in moved.append(result) }
    }

    /// Who gets which form of a handover to several: in turn, in the order the forms are listed;
    /// with `balance`, each to the one with the fewest incomplete forms so far (those they hold,
    /// plus what this handover gave them; ties to the one named first).
    static func receivers(of forms: [SelectedForm], among targets: [String], balance: Bool,
                          in session: Session) throws -> [Int64: String] {
        guard targets.count > 1 else { return [:] }
        var load = Dictionary(uniqueKeysWithValues: targets.map { ($0, 0) })
        if balance {
            var filter = FormFilter(state: .incomplete)
            filter.owners = Set(targets)
            for row in try session.store().listing.workload(filter, policies: try session.ownerPolicies())
            where load[row.owner] != nil {
                load[row.owner] = row.incomplete
            }
        }
        var receiver: [Int64: String] = [:]
        for (index, form) in forms.enumerated() {
            let target = balance ? targets.min { load[$0]! < load[$1]! }! : targets[index % targets.count]
            receiver[form.id] = target
            load[target]! += 1
        }
        return receiver
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

extension Substring {
    /// Without the blanks at either end: what `trimmingCharacters(in: .whitespaces)` gives (general
    /// category Zs, and tab), without Foundation's bridging, which showed in a move script's
    /// profile (every `move` line asks twice: its check and its run).
    fileprivate var trimmingBlanks: String {
        let isBlank = Substring.isBlank
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isBlank($0) })!
        return String(scalars[first...last])
    }

    /// A blank at either end of a technician's name: tab, or general category Zs. Of ASCII, Zs
    /// holds only the space, so a name's ASCII ends need no look-up in the Unicode tables (which
    /// cost more than the rest of a move line's check).
    fileprivate static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || scalar == "\t" }
        return scalar.properties.generalCategory == .spaceSeparator
    }
}
