import ArgumentParser
import Foundation
import MIDirectory
import MIFiles
import MIStore

/// `notifications`: the reminder plan — when each technician's tablet reminds them of an
/// incomplete form, and which reminders a full device drops.
public struct NotificationsCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Show the reminder plan (who gets reminded of which form, and when).",
        discussion: """
            One reminder per incomplete form and notify day (policy), that many days after the \
            form's expiry clock started (created, or its last move, restore or reopen), if that \
            is before the form expires. A device holds at most 64 pending \
            notifications: for a technician who needs more, the earliest 64 are kept and the rest \
            are marked dropped. pending: not fired yet (at or after now).

            --from (inclusive) and --to (exclusive) select by fire time: YYYY-MM-DD (midnight \
            UTC) or ISO 8601. --due lists the reminders due now: fired at or before now and \
            within the last 24 hours, or since --from (for a cron job that missed runs). \
            --ics writes the listed reminders as an iCalendar file instead.

            Technicians see their own plan only.

            Examples:
              notifications --user jdoe
              notifications --due --format csv
              notifications --from 2026-11-23 --to 2026-11-30 --ics week.ics
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Option(help: ArgumentHelp("Only this technician's reminders.", valueName: "technician"))
    public var user: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only reminders firing at or after this time (2026-11-23, 2026-11-23T12:00, today, ...).",
                               valueName: "when"), transform: TimeArgument.init(parsing:))
    public var from: TimeArgument?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only reminders firing before this time (the same forms as --from).", valueName: "when"),
            transform: TimeArgument.init(parsing:))
    public var to: TimeArgument?
    @Flag(help: "Only reminders due now (fired in the last 24 hours, or since --from).")
    public var due = false
    @Option(help: ArgumentHelp("Write the reminders to this iCalendar (.ics) file.", valueName: "file"), completion: .file(), transform: UserPath.expanded)
    public var ics: String?

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let owner = try session.visibleOwner(asked: user)
        var filter = ReminderFilter(owner: owner, due: due)
        filter.from = from?.date(now: session.clock.now(), zone: session.display.timeZone)
        filter.to = to?.date(now: session.clock.now(), zone: session.display.timeZone)
        let policies = try session.ownerPolicies()
        let policy = policies.site
        filter.ownerPolicies = policies.differing
        let store = try session.store()

        if let ics {
            let writer = try ICalendarWriter(path: ics, now: session.clock.now(), dryRun: session.dryRun)
            let times = TimeText(zone: session.display.timeZone)
            var dropped = 0
            try store.policy.forEachReminder(policy: policy, filter: filter) { reminder in
                if reminder.dropped { dropped += 1 }
                try writer.add(Self.event(reminder, times: times))
            }
            try writer.finish()
            output.record([Column("file"), Column("events"), Column("dropped")],
                          [.string(ics), .int(Int64(writer.events)), .int(Int64(dropped))])
            if session.dryRun { output.note("dry run: would write \(ics) (\(writer.events) event(s))") }
            return
        }
        output.beginRows([Column("at"), Column("uid"), Column("id"), Column("name"), Column("day"), Column("expires"),
                          Column("pending"), Column("dropped")])
        var found = 0
        try store.policy.forEachReminder(policy: policy, filter: filter) { reminder in
            try session.checkpointRow()
            found += 1
            output.row([.time(reminder.at), .string(reminder.form.owner), .int(reminder.form.id),
                        .string(reminder.form.name), .int(Int64(reminder.day)), .time(reminder.expiresAt),
                        .bool(reminder.pending), .bool(reminder.dropped)])
        }
        output.endRows()
        try session.requireKnownUser(owner, foundNothing: found == 0)
    }

    /// One reminder as a calendar event; the description's times in the site's zone (`times`).
    static func event(_ reminder: Reminder, times: TimeText) -> ICalendarWriter.Event {
        let form = reminder.form
        var summary = "MI reminder for \(form.owner): finish '\(form.name)'"
        var description = "Form \(form.id) '\(form.name)' of \(form.owner) (\(form.template)), created \(times.table(form.created.date)): "
            + "reminder of day \(reminder.day). The form expires at \(times.table(reminder.expiresAt))."
        if reminder.dropped {
            summary = "[dropped] " + summary
            description += " Dropped: \(form.owner)'s device already holds 64 earlier pending notifications."
        }
        return ICalendarWriter.Event(uid: "mi-form-\(form.id)-day-\(reminder.day)@miadmin", start: reminder.at,
                                     summary: summary, description: description)
    }
}
