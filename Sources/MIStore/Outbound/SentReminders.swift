import Foundation

/// One mailed reminder: form and notify day (`sent_reminders`). Each is mailed at most once per
/// run of the form's expiry clock: a move, restore or reopen that restarts it plans the form's
/// reminders anew, and they are mailed again.
public struct ReminderKey: Sendable, Hashable {
    public let formId: Int64
    public let day: Int
    public init(formId: Int64, day: Int) {
        self.formId = formId
        self.day = day
    }
}

extension FormStore {
    /// The reminders already mailed for live incomplete forms (the only ones `remind` looks at),
    /// since each form's expiry clock last started.
    public func sentReminders() throws -> Set<ReminderKey> {
        try read { db in
            var keys = Set<ReminderKey>()
            try db.forEachRow(literal: """
                SELECT sent_reminders.form_id, sent_reminders.day FROM sent_reminders
                JOIN forms ON forms.id = sent_reminders.form_id
                WHERE forms.state = 'incomplete' AND forms.trashed_at IS NULL
                  AND (forms.expiry_reset_at IS NULL OR sent_reminders.sent_at >= forms.expiry_reset_at)
                """) { row in keys.insert(ReminderKey(formId: row["form_id"], day: row["day"])) }
            return keys
        }
    }

    /// Records reminders as mailed to `uid`, in one small transaction after the mail server took
    /// the mail; a reminder recorded under an earlier run of the form's clock is recorded anew.
    public func recordSentReminders(_ keys: [ReminderKey], uid: String) throws {
        let now = nowSeconds()
        try write { db in
            for key in keys {
                try db.execute(literal: """
                    INSERT INTO sent_reminders (form_id, day, uid, sent_at) VALUES (\(key.formId), \(key.day), \(uid), \(now))
                    ON CONFLICT (form_id, day) DO UPDATE SET uid = excluded.uid, sent_at = excluded.sent_at
                    """)
            }
        }
    }
}
