import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `deliveries dismiss ID --note TEXT`: ends a held delivery that will not be sent (the form was
/// reopened, or the office will never take it), so neither `today` nor the nightly `deliver`
/// keeps reporting it; audited with the note.
public struct DeliveriesDismissCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "dismiss",
        abstract: "End a held delivery without sending it (audited with a note).",
        discussion: """
            For a held delivery that is not to be sent: the form was reopened after it was \
            submitted (a new submit queues the new version), or the office will never take \
            it. The delivery leaves the outbox; the audit row (deliveries.dismiss) keeps its \
            form, version, why it was held and the note. Only a held delivery is dismissed. \
            Support staff and site leads (where the site keeps crews, a foreman who leads every \
            crew) may dismiss.

            Examples:
              deliveries dismiss 1 --note 'reopened for the missing photo; resubmitted as version 3'
              deliveries dismiss 1 --note 'office retired this template' --dry-run
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The held delivery's id (from 'deliveries --state held').", valueName: "id"))
    public var id: Int64
    @Option(help: ArgumentHelp("Why it is not sent: recorded in the audit trail.", valueName: "text"))
    public var note: String
    @OptionGroup public var dryRun: DryRunOption

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let reach = try session.crewReach()
        guard reach.isEveryCrew else {
            throw CommandError.permissionDenied("'deliveries dismiss' is for support staff and site leads: a dismissed delivery "
                                                + "never reaches the office (you lead \(reach.summary))")
        }
        try session.changing(dryRun: dryRun.dryRun, output: output) {
            let dismissed = try session.store().outbox.dismissDelivery(id, actor: session.user.uid, note: note)
            var values = DeliveriesCommand.values(dismissed)
            values[DeliveriesCommand.columns.firstIndex { $0.key == "state" }!] = .string("dismissed")
            output.record(DeliveriesCommand.columns, values)
        }
    }
}
