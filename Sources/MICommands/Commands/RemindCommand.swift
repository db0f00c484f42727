import ArgumentParser
import Foundation
import MIDirectory
import MIOutbound
import MIStore

/// `remind [--dry-run]`: mails each technician whose reminders are due one message listing
/// those forms, with an iCalendar file of their remaining reminders (config `mail`).
public struct RemindCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "remind",
        abstract: "Mail technicians the reminders that are due (one mail each).",
        discussion: """
            A reminder is due when its notify day (policy notify-days after the form's expiry \
            clock started: created, or its last move, restore or reopen) has come, the form is \
            still incomplete and not expired, and it was not mailed before: each (form, day) is \
            mailed at most once per run of the clock, recorded in the store, so a second run the \
            same day sends nothing, and a form handed over is reminded anew. Each technician \
            with due reminders gets one mail (to the 'mail' attribute in the directory) listing \
            those forms with their expiry times, and a calendar (reminders.ics) of the same: \
            each listed form's expiry, and the remaining reminders, at most 64 (a device's limit; \
            the rest are left out as in 'notifications'). Technicians without a mail address are \
            listed as skipped. --dry-run lists what would be sent and sends nothing.

            Exit status 2 when the mail server cannot be reached (nothing more is sent; what was \
            not sent is sent by the next run). Usually run by the miadmin-remind timer. \
            Where the site keeps crews, a foreman whose crews hold no technician but himself is refused (exit 1): he would see \
            only his own forms; a timer's account belongs in teams.allTeamsGroup.

            Examples:
              remind --dry-run
              remind
            """)
    public static let roles: Set<Role> = [.foreman]

    @Flag(help: "List who would get which reminders; send and record nothing.")
    public var dryRun = false

    public init() {}

    /// One technician's due reminders and remaining plan.
    struct Recipient {
        var due: [Reminder] = []
        var remaining: [Reminder] = []
    }

    public func run(in session: Session, output: OutputSink) throws {
        let settings = session.config.mail
        if settings == nil && !dryRun {
            throw CommandError.failed("no mail configured: set mail.url and mail.from in \(session.config.file) (docs/configuration.md)")
        }
        try session.refuseWithoutTechnicians("remind")
        let store = try session.store()
        if !dryRun { try Self.refuseInSessionTransaction(store.administration, "remind") }
        let policies = try session.ownerPolicies()
        var filter = ReminderFilter()
        filter.ownerPolicies = policies.differing
        let now = session.clock.now()
        let sent = try store.outbox.sentReminders()
        var recipients: [String: Recipient] = [:]
        var order: [String] = []
        try store.policy.forEachReminder(policy: policies.site, filter: filter) { reminder in
            let owner = reminder.form.owner
            if reminder.pending {
                guard !reminder.dropped, recipients[owner] != nil else { return }
                recipients[owner]?.remaining.append(reminder)
            } else if reminder.expiresAt > now, !sent.contains(ReminderKey(formId: reminder.form.id, day: reminder.day)) {
                if recipients[owner] == nil {
                    recipients[owner] = Recipient()
                    order.append(owner)
                }
                recipients[owner]?.due.append(reminder)
            }
        }

        output.beginRows([Column("uid"), Column("mail"), Column("forms"), Column("reminders"), Column("calendar"),
                          Column("state"), Column("reason")])
        var client: MailClient?
        var refused = 0
        var failure: OutboundError?
        for uid in order {
            let recipient = recipients[uid]!
            let forms = Dictionary(grouping: recipient.due, by: \.form.id).count
            func row(_ mail: String?, _ state: String, _ reason: String?) {
                output.row([.string(uid), .optional(mail), .int(Int64(forms)), .int(Int64(recipient.due.count)),
                            .int(Int64(recipient.remaining.count)), .string(state), .optional(reason)])
            }
            guard let user = try session.directory.user(uid: uid) else {
                row(nil, "skipped", "not in the directory")
                continue
            }
            guard let address = user.mail, AppConfig.isMailAddress(address) else {
                row(user.mail, "skipped", user.mail == nil ? "no mail address" : "mail address not usable")
                continue
            }
            guard let settings, !dryRun else {
                row(address, "would send", nil)
                continue
            }
            let message = Self.message(to: user, address: address, recipient, from: settings.from, now: now,
                                       zone: session.display.timeZone)
            do {
                if client == nil { client = try Self.client(settings, session: session, output: output) }
                try client!.send(message.bytes, from: settings.from, to: address)
            } catch let error as OutboundError where error.kind == .refused {
                refused += 1
                row(address, "refused", error.message)
                continue
            } catch let error as OutboundError where error.kind == .unreachable || error.kind == .tls {
                row(address, "not sent", error.message)
                failure = error
                break
            }
            try store.outbox.recordSentReminders(recipient.due.map { ReminderKey(formId: $0.form.id, day: $0.day) }, uid: uid)
            row(address, "sent", nil)
        }
        output.endRows()
        if let failure {
            throw OutboundFailure(message: "the mail server could not be reached: \(failure.message); "
                                  + "the reminders not sent are sent by the next run")
        }
        if refused > 0 {
            throw CommandError.failed("the mail server refused \(refused) mail(s); see the rows marked refused")
        }
    }

    static func client(_ settings: AppConfig.Mail, session: Session, output: OutputSink) throws -> MailClient {
        func secret(_ key: String, _ file: String?) throws -> String? {
            try file.map { String(decoding: try session.config.readSecret(key, $0, privileged: false, warn: output.warning),
                                  as: UTF8.self) }
        }
        return try MailClient(MailClient.Settings(
            url: settings.url, startTLS: settings.startTLS, tls: settings.tls,
            user: try secret("mail.userFile", settings.userFile), password: try secret("mail.passwordFile", settings.passwordFile),
            timeoutSeconds: settings.timeoutSeconds))
    }

    /// The mail: the due forms (each once, with its expiry), and as a calendar what it says: each
    /// of those forms' expiry, and the remaining plan.
    /// Times are in the site's zone with their offset, as the console shows them.
    static func message(to user: DirectoryUser, address: String, _ recipient: Recipient, from: String, now: Date,
                        zone: TimeZone) -> MailMessage {
        let times = TimeText(zone: zone)
        var seen = Set<Int64>()
        var lines: [String] = []
        var events: [ICalendarWriter.Event] = []
        for reminder in recipient.due.sorted(by: { ($0.expiresAt, $0.form.id) < ($1.expiresAt, $1.form.id) })
        where seen.insert(reminder.form.id).inserted {
            let form = reminder.form
            lines.append("  - '\(form.name)' (form \(form.id), \(form.template)), created \(times.table(form.created.date)), "
                         + "expires \(times.table(reminder.expiresAt))")
            events.append(expiryEvent(reminder, times: times))
        }
        let body = """
            Hello \(user.name.isEmpty ? user.uid : user.name),

            these MI forms of yours are not finished yet:

            \(lines.joined(separator: "\n"))

            A form that is not completed before it expires is moved to the trash.
            The attached calendar (reminders.ics) holds when these forms expire, and your remaining reminders.

            -- miadmin
            """
        events += recipient.remaining.map { NotificationsCommand.event($0, times: times) }
        return MailMessage(from: from, to: address, subject: "MI reminder: \(seen.count) form(s) to finish", body: body,
                           attachment: .init(fileName: "reminders.ics", contentType: "text/calendar; method=PUBLISH",
                                             data: ICalendarWriter.calendar(events, now: now)),
                           date: now)
    }

    /// A due form's expiry as a calendar event, beside the reminders.
    static func expiryEvent(_ reminder: Reminder, times: TimeText) -> ICalendarWriter.Event {
        let form = reminder.form
        return ICalendarWriter.Event(
            uid: "mi-form-\(form.id)-expires-\(Int64(reminder.expiresAt.timeIntervalSince1970))@miadmin", start: reminder.expiresAt,
            summary: "MI form of \(form.owner) expires: '\(form.name)'",
            description: "Form \(form.id) '\(form.name)' of \(form.owner) (\(form.template)) expires at "
                + "\(times.table(reminder.expiresAt)) unless it is completed before; then it is moved to the trash.")
    }
}
