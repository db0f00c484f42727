import ArgumentParser
import MIDirectory
import MIStore

/// `reopen FORM --note REASON`: a completed form goes back to its technician as incomplete; a
/// foreman may also take back a submitted one.
public struct ReopenCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reopen",
        abstract: "Send a completed (or, as foreman, submitted) form back to its technician, with a reason.",
        discussion: """
            The form becomes incomplete again (its expiry counts from now); the technician gets a \
            notice carrying the reason, which the audit trail records too. A foreman may also take \
            back a form submitted by mistake; support staff reopen completed forms only.

            Examples:
              reopen 6 --note 'Bearing temperatures missing for the pump'
              reopen 'jdoe/Generator monthly' --note 'submitted before the photos were checked'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @OptionGroup public var target: FormArgument
    @Option(help: ArgumentHelp("Why: sent to the technician and recorded in the audit trail.", valueName: "text"))
    public var note: String
    @OptionGroup public var dryRun: DryRunOption

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let role = session.actingRole(Self.roles)
        let result = try session.changing(dryRun: dryRun.dryRun, output: output) {
            try session.store().changes.reopen(target.form, reason: note, actor: session.user.uid,
                                       actorRole: role.rawValue, allowSubmitted: session.user.has(.foreman))
        }
        if let sentAt = result.sentAt {
            output.warning("form \(result.formId) '\(result.name)' was already delivered to the office "
                           + "(\(TimeText(zone: session.display.timeZone).table(sentAt))); reopening does not recall the office's copy")
        }
        if result.withdrawnDeliveries > 0 {
            output.warning("form \(result.formId) '\(result.name)' had not gone to the office yet; its delivery is now held")
        }
        output.record([Column("id"), Column("owner"), Column("name"), Column("state"), Column("notice")],
                      [.int(result.formId), .string(result.owner), .string(result.name),
                       .string(FormState.incomplete.rawValue), .int(result.noticeId)])
    }
}
