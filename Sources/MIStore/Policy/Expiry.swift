import Foundation

/// The one rule of when an incomplete form expires, and the day arithmetic that expiry, purge,
/// reminders and age filters are made of.
///
/// A form's expiry clock starts at `created`, or at its last restart (`expiry_reset_at`: a move
/// under `expiry-from assigned`, a restore, a reopen) when that is later; the form expires its
/// owner's `expiry-days` after that start (``OwnerPolicies/expires(_:)``). Days are 86,400
/// seconds: the forms of one store come from many zones, so no calendar's days are meant.
public enum Expiry {
    /// Seconds in a policy day.
    static let secondsPerDay: Double = 86_400

    /// Where a form's clock starts: `created`, or its last restart when later.
    public static func clockStart(created: Date, restartedAt: Date?) -> Date {
        guard let restartedAt, restartedAt > created else { return created }
        return restartedAt
    }

    /// `days` days after `start`: an expiry, a reminder day.
    public static func date(_ days: Int, after start: Date) -> Date {
        start.addingTimeInterval(Double(days) * secondsPerDay)
    }

    /// `days` days before `now`: a run's cutoff (expiry, purge, `--older-than`). Whatever started
    /// before it is more than `days` days old; what started exactly then is not.
    public static func cutoff(_ days: Int, before now: Date) -> Date {
        now.addingTimeInterval(-Double(days) * secondsPerDay)
    }

    /// When a form whose clock started at `start` expires under `policy`.
    public static func expires(clockStart start: Date, policy: ExpiryPolicy) -> Date {
        date(policy.expiryDays, after: start)
    }
}
