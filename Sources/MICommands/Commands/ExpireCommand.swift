import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `expire`: incomplete forms older than the expiry days go to the trash, as the field app
/// deletes them at launch — but recoverable (`trash`, `restore`) until `purge`.
public struct ExpireCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "expire",
        abstract: "Move incomplete forms older than the expiry days to the trash.",
        discussion: """
            A form expires when it was created more than N days ago (N: --days, else the policy's \
            expiry days; where a crew has its own expiry-days, 'policy set --team', its members' forms \
            expire by it, and --days N still means N for everyone); one created exactly N days ago stays. A form restored or reopened counts \
            from then. Each expired form keeps its media, is audited, and its owner gets a notice. \
            Shows what will go and asks first (--yes to skip the question); --dry-run only lists. \
            Support staff may run --dry-run (it changes nothing); expiring needs a foreman. \
            Where the site keeps crews, a foreman whose crews hold no technician but himself is refused (exit 1): he would see \
            only his own forms; a timer's account belongs in teams.allTeamsGroup.

            Examples:
              expire --dry-run
              expire --days 14 --yes --note 'cleanup after the audit'
            """)
    /// Support may look (`--dry-run`, read-only); only a foreman expires (checked in `run`).
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(help: ArgumentHelp("Expire forms created more than this many days ago (default: the policy).", valueName: "days"))
    public var days: Int?
    @OptionGroup public var batch: BatchOptions
    @OptionGroup public var note: NoteOption

    public init() {}

    public func validate() throws {
        if let days, !ExpiryPolicy.dayRange.contains(days) {
            throw ValidationError("--days takes a number of days between \(ExpiryPolicy.dayRange.lowerBound) and \(ExpiryPolicy.dayRange.upperBound)")
        }
    }

    static let columns = FormColumns.columns + [Column("ageDays")]

    static func values(_ form: FormSummary, now: Date) -> [Value] {
        FormColumns.values(form) + [.int(Int64((now.timeIntervalSince(form.created.date) / 86_400).rounded(.down)))]
    }

    /// One cutoff with --days (for everyone), else one per expiry-days of the owners' policies,
    /// as the store groups them (``FormStore/expiryCutoffs(_:)``).
    static func cutoffs(days: Int?, in session: Session) throws -> [ExpiryCutoff] {
        let store = try session.store()
        if let days { return [try store.changes.expiryCutoff(days: days)] }
        return store.changes.expiryCutoffs(try session.ownerPolicies())
    }

    public func run(in session: Session, output: OutputSink) throws {
        if !batch.dryRun { try session.require([.foreman], for: "expire without --dry-run") }
        try session.refuseWithoutTechnicians("expire")
        let store = try session.store()
        let cutoffs = try Self.cutoffs(days: self.days, in: session)
        let now = cutoffs[0].now
        let days = cutoffs.count == 1 ? "\(cutoffs[0].days) day(s)" : "their policy's expiry days ("
            + cutoffs.map { "\($0.days)" }.joined(separator: ", ") + ")"
        let actor = session.user.uid, note = self.note.note
        try BatchRemoval<FormSummary>(
            name: "expire", columns: Self.columns, row: { Self.values($0, now: now) },
            count: { try cutoffs.reduce(0) { $0 + (try store.changes.countExpirable($1)) } },
            forEachCandidate: { each in for cutoff in cutoffs { try store.changes.forEachExpirable(cutoff) { try each($0) } } },
            perform: { each, progress in
                var total = 0
                for cutoff in cutoffs {
                    let base = total
                    total += try store.changes.expire(cutoff, actor: actor, note: note, { try each($0.form) },
                                              progress: { progress(base + $0) })
                }
                return total
            },
            question: { "move \($0) incomplete form(s) created more than \(days) ago to the trash?" },
            nothingToDo: "nothing to expire: no incomplete form was created more than \(days) ago",
            summary: { "moved \($0) form(s) to the trash ('trash' lists them, 'restore FORM' brings one back)" }
        ).run(in: session, output: output, dryRun: batch.dryRun, yes: batch.yes)
    }
}
