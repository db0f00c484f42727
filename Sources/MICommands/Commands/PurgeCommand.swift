import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `purge`: destroy forms that have been in the trash longer than the retention days.
public struct PurgeCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Destroy forms in the trash longer than the retention days, with their media.",
        discussion: """
            Destroys forms trashed more than DAYS ago (--older-than, else the policy's retention \
            days; where a crew has its own retention-days, 'policy set --team', its members' \
            forms by it; 0 empties the trash). Media and foreman comments go with them; the audit trail \
            keeps every step. Each owner gets a notice. Shows what will go and asks first (--yes \
            to skip the question); --dry-run only lists. Where the site keeps crews, a foreman \
            whose crews hold no technician but himself is refused (exit 1): he would see only his own forms; a timer's account \
            belongs in teams.allTeamsGroup.

            Examples:
              purge --dry-run
              purge --older-than 60 --yes
            """)
    public static let roles: Set<Role> = [.foreman]

    @Option(name: .customLong("older-than"),
            help: ArgumentHelp("Destroy forms trashed more than this many days ago (default: the policy).", valueName: "days"))
    public var olderThan: Int?
    @OptionGroup public var batch: BatchOptions
    @OptionGroup public var note: NoteOption

    public init() {}

    public func validate() throws {
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than takes a number of days, 0 or more") }
    }

    public func run(in session: Session, output: OutputSink) throws {
        try session.refuseWithoutTechnicians("purge")
        let store = try session.store()
        // One cutoff with --older-than, else one per retention-days of the owners' policies.
        let cutoffs = try olderThan.map { [try store.changes.purgeCutoff(days: $0)] } ?? store.changes.purgeCutoffs(try session.ownerPolicies())
        let days = cutoffs.count == 1 ? "\(cutoffs[0].days) day(s)" : "their policy's retention days ("
            + cutoffs.map { "\($0.days)" }.joined(separator: ", ") + ")"
        let actor = session.user.uid, note = self.note.note
        try BatchRemoval<TrashedForm>(
            name: "purge", columns: TrashCommand.columns, row: TrashCommand.values,
            count: { try cutoffs.reduce(0) { $0 + (try store.changes.countPurgeable($1)) } },
            forEachCandidate: { each in for cutoff in cutoffs { try store.changes.forEachPurgeable(cutoff) { try each($0) } } },
            perform: { each, progress in
                var total = 0
                for cutoff in cutoffs {
                    let base = total
                    total += try store.changes.purge(cutoff, actor: actor, note: note, { try each($0) }, progress: { progress(base + $0) })
                }
                return total
            },
            question: { "destroy \($0) form(s) trashed more than \(days) ago, with their media? This cannot be undone." },
            nothingToDo: "nothing to purge: no form has been in the trash more than \(days)",
            summary: { "destroyed \($0) form(s) from the trash" }
        ).run(in: session, output: output, dryRun: batch.dryRun, yes: batch.yes)
    }
}
