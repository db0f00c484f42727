import Foundation

/// One reminder of the plan: a local notification the field app schedules for an incomplete form
/// `day` days after its expiry clock started (`created`, or the clock's last restart: a move,
/// a restore, a reopen), so its reminders always come before the expiry that clock sets.
public struct Reminder: Sendable, Hashable {
    public let form: FormSummary
    /// Days after the form's expiry clock started (one of the policy's notify days).
    public let day: Int
    /// When it fires.
    public let at: Date
    /// When the form expires (reminders are only planned strictly before it).
    public let expiresAt: Date
    /// Not fired yet (fires at or after the plan's now).
    public let pending: Bool
    /// Pending, but past the device's cap: the owner's device cannot hold it
    /// (``ExpiryPolicy/deviceNotificationCap`` earliest pending reminders are kept).
    public let dropped: Bool
}

/// Which reminders of the plan ``FormStore/forEachReminder(policy:filter:_:)`` passes on; nil
/// fields do not filter. The device cap is applied to the whole plan before filtering.
public struct ReminderFilter: Sendable, Hashable {
    /// Only this owner's forms.
    public var owner: String?
    /// Only reminders firing at or after this instant.
    public var from: Date?
    /// Only reminders firing before this instant.
    public var to: Date?
    /// Only reminders due now: fired at or before now and not dropped, since ``from`` or, without
    /// it, within the last 24 hours (after now − 24 h) — so a daily job reports each one once.
    public var due: Bool
    /// Owners whose policy is not the one passed to ``FormStore/forEachReminder(policy:filter:_:)``
    /// (a crew's own, `policy set --team`): their forms' reminders and expiry follow it.
    public var ownerPolicies: [String: ExpiryPolicy] = [:]

    public init(owner: String? = nil, from: Date? = nil, to: Date? = nil, due: Bool = false) {
        self.owner = owner
        self.from = from
        self.to = to
        self.due = due
    }

    /// How far back `due` looks without `from`.
    public static let dueWindow: TimeInterval = 86_400

    func admits(_ reminder: Reminder, now: Date) -> Bool {
        if let from, reminder.at < from { return false }
        if let to, reminder.at >= to { return false }
        if due {
            guard reminder.at <= now, !reminder.dropped else { return false }
            if from == nil && reminder.at <= now.addingTimeInterval(-Self.dueWindow) { return false }
        }
        return true
    }
}

extension FormStore {
    /// The reminder plan at the store clock's now: for each live incomplete form (of `owner`, when
    /// given), one reminder at its clock's start + each of `policy.notifyDays`, kept only when it
    /// fires strictly before the form expires (`expiryDays` after that start). The clock starts at
    /// `created`, or again at a move (under `expiry-from assigned`), a restore or a reopen
    /// (``Expiry``): a form just handed over is reminded of its new expiry, never of the old one.
    ///
    /// A device holds at most ``ExpiryPolicy/deviceNotificationCap`` pending notifications: per
    /// owner, the earliest pending ones (by time, then form id, then day) are kept and the rest
    /// are marked ``Reminder/dropped``. Reminders come owner by owner (by uid), each owner's by time;
    /// only one owner's reminders are in memory at once.
    public func forEachReminder(policy: ExpiryPolicy, filter: ReminderFilter = ReminderFilter(),
                                _ body: (Reminder) throws -> Void) throws {
        let now = clock.now()
        // Each policy's reminder days worked out once, not per form.
        let reminderDays = { (policy: ExpiryPolicy) in Array(Set(policy.notifyDays)).sorted() }
        let siteDays = reminderDays(policy)
        let ownerPolicies = Dictionary(filter.ownerPolicies.map { ($0.key.nfc, (policy: $0.value, days: reminderDays($0.value))) },
                                       uniquingKeysWith: { a, _ in a })
        try read { db in
            var query = formQuery()
            query.add("forms.state = 'incomplete' AND forms.trashed_at IS NULL")
            if let owner = filter.owner { query.add("forms.owner = \(owner.nfc)") }
            var currentOwner: String?
            var pendingOfOwner: [Reminder] = []
            func flush() throws {
                try Self.emitCapped(pendingOfOwner, now: now) { reminder in
                    if filter.admits(reminder, now: now) { try body(reminder) }
                }
                pendingOfOwner.removeAll(keepingCapacity: true)
            }
            try db.forEachRow(literal: """
                SELECT \(SummarySQL.columns) FROM forms WHERE \(query.condition) ORDER BY forms.owner, forms.name
                """) { row in
                let form = try Self.summary(row)
                if form.owner != currentOwner {
                    try flush()
                    currentOwner = form.owner
                }
                let own = ownerPolicies[form.owner]
                guard let expiresAt = form.expires(afterDays: (own?.policy ?? policy).expiryDays) else { return }
                for day in own?.days ?? siteDays {
                    let at = Expiry.date(day, after: form.clockStart)
                    guard at < expiresAt else { continue }
                    pendingOfOwner.append(Reminder(form: form, day: day, at: at, expiresAt: expiresAt,
                                                   pending: at >= now, dropped: false))
                }
            }
            try flush()
        }
    }

    /// One owner's reminders, by time, with the pending ones past the device cap marked dropped.
    private static func emitCapped(_ reminders: [Reminder], now: Date, _ body: (Reminder) throws -> Void) throws {
        let sorted = reminders.sorted { a, b in
            if a.at != b.at { return a.at < b.at }
            if a.form.id != b.form.id { return a.form.id < b.form.id }
            return a.day < b.day
        }
        var kept = 0
        for reminder in sorted {
            guard reminder.pending else { try body(reminder); continue }
            kept += 1
            if kept <= ExpiryPolicy.deviceNotificationCap {
                try body(reminder)
            } else {
                try body(Reminder(form: reminder.form, day: reminder.day, at: reminder.at, expiresAt: reminder.expiresAt,
                                  pending: true, dropped: true))
            }
        }
    }
}
