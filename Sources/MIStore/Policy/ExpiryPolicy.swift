import Foundation

/// The field app's expiry and notification settings (`spec/device-layout.md`, "Policy values"),
/// plus how long expired forms stay in the trash.
///
/// A policy is usable when ``problems`` is empty: every value a whole number of days in
/// ``dayRange`` (1–3650, ten years), reminder days distinct and before the expiry day (a reminder on or after it would never fire), and no
/// more reminders per form than a device holds pending (``deviceNotificationCap``).
public struct ExpiryPolicy: Sendable, Hashable {
    /// An incomplete form older than this many days after `created` is expired.
    public var expiryDays: Int
    /// Reminders fire this many days after `created`, while the form is incomplete.
    public var notifyDays: [Int]
    /// A trashed form older (in the trash) than this many days may be purged.
    public var retentionDays: Int
    /// Whether a `move` restarts the moved form's expiry clock.
    public var expiryFrom: ExpiryStart

    /// The days any setting may hold: at least one day, at most ten years. Beyond that dates stop
    /// meaning anything (999999999 days is the year 506713, which iCalendar cannot even write).
    public static let dayRange = 1...3650

    /// iOS keeps at most 64 pending local notifications per app.
    public static let deviceNotificationCap = 64

    /// The field app's defaults, and 30 days in the trash.
    public static let defaults = ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30)

    public init(expiryDays: Int, notifyDays: [Int], retentionDays: Int, expiryFrom: ExpiryStart = .assigned) {
        self.expiryDays = expiryDays
        self.notifyDays = notifyDays
        self.retentionDays = retentionDays
        self.expiryFrom = expiryFrom
    }

    /// Why this policy cannot be used, one sentence each; empty when it can.
    public var problems: [String] {
        var problems: [String] = []
        let range = "between \(Self.dayRange.lowerBound) and \(Self.dayRange.upperBound) days"
        if !Self.dayRange.contains(expiryDays) {
            problems.append("expiry-days must be \(range) (got \(expiryDays)).")
        }
        if !Self.dayRange.contains(retentionDays) {
            problems.append("retention-days must be \(range) (got \(retentionDays)).")
        }
        var seen = Set<Int>()
        for day in notifyDays {
            if !Self.dayRange.contains(day) {
                problems.append("notify-days: \(day) is out of range; reminder days must be \(range) after creation "
                    + "and before the expiry day.")
            } else if !seen.insert(day).inserted {
                problems.append("notify-days: day \(day) is listed twice.")
            } else if expiryDays >= 1 && day >= expiryDays {
                problems.append("notify-days: a reminder on day \(day) would never fire: forms expire after "
                    + "\(expiryDays) days, so reminders must come before day \(expiryDays).")
            }
        }
        if notifyDays.count > Self.deviceNotificationCap {
            problems.append("notify-days: \(notifyDays.count) reminders per form are more than a device holds "
                + "(\(Self.deviceNotificationCap) pending notifications).")
        }
        return problems
    }
}

/// Where an incomplete form's expiry counts from (`policy set expiry-from`). `restore` and
/// `reopen` restart the clock either way.
public enum ExpiryStart: String, Sendable, Hashable, CaseIterable {
    /// From `created` only: a handover does not give the new technician more time.
    case created
    /// From the last time the form was given to a technician: a `move` restarts the clock, so a
    /// form handed over at 05:38 is not trashed by that night's `expire`.
    case assigned
}

/// A setting of the policy, as `policy set` names it.
public enum PolicySetting: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case expiryDays = "expiry-days"
    case notifyDays = "notify-days"
    case retentionDays = "retention-days"
    case expiryFrom = "expiry-from"

    public var description: String { rawValue }

    /// The key in the `policy` table (and in the config file under `policy.`).
    var storeKey: String {
        switch self {
        case .expiryDays: "expiryDays"
        case .notifyDays: "notifyDays"
        case .retentionDays: "retentionDays"
        case .expiryFrom: "expiryFrom"
        }
    }

    /// The value of this setting in `policy`, as `policy set` takes it (`7`, `1,2,5`).
    public func text(in policy: ExpiryPolicy) -> String {
        switch self {
        case .expiryDays: String(policy.expiryDays)
        case .notifyDays: policy.notifyDays.isEmpty ? "none" : policy.notifyDays.map(String.init).joined(separator: ",")
        case .retentionDays: String(policy.retentionDays)
        case .expiryFrom: policy.expiryFrom.rawValue
        }
    }

    /// `policy` with this setting changed to `text`; `.invalidInput` naming the reason when `text`
    /// is not a value of this setting. (Whether the result is usable is ``ExpiryPolicy/problems``.)
    func apply(_ text: String, to policy: ExpiryPolicy) throws(StoreError) -> ExpiryPolicy {
        var result = policy
        switch self {
        case .expiryDays: result.expiryDays = try Self.days(text, setting: self)
        case .retentionDays: result.retentionDays = try Self.days(text, setting: self)
        case .expiryFrom:
            guard let start = ExpiryStart(rawValue: text.trimmingCharacters(in: .whitespaces)) else {
                throw StoreError(.invalidInput, "expiry-from: '\(text)' is neither 'created' nor 'assigned'.")
            }
            result.expiryFrom = start
        case .notifyDays:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed == "none" || trimmed.isEmpty {
                result.notifyDays = []
            } else {
                var days: [Int] = []
                for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                    days.append(try Self.days(String(part), setting: self, whole: text))
                }
                result.notifyDays = days
            }
        }
        return result
    }

    private static func days(_ text: String, setting: PolicySetting, whole: String? = nil) throws(StoreError) -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.hasPrefix("-") ? trimmed.dropFirst() : Substring(trimmed)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = Int(trimmed) else {
            let context = whole.map { " in '\($0)'" } ?? ""
            throw StoreError(.invalidInput, "\(setting): '\(text)'\(context) is not a whole number of days.")
        }
        return value
    }
}

/// Where an effective policy value comes from.
public enum PolicySource: Sendable, Hashable {
    /// The console's config file (or the built-in default when the file does not set it).
    case config
    /// The shared store (`policy set`), by whom and when.
    case store(setBy: String, setAt: Date)
}

/// The policy in force: the store's values where `policy set` stored one, else the config's.
public struct EffectivePolicy: Sendable, Hashable {
    public let policy: ExpiryPolicy
    public let sources: [PolicySetting: PolicySource]

    public func source(of setting: PolicySetting) -> PolicySource { sources[setting] ?? .config }
}

/// What ``FormStore/setPolicy(_:to:defaults:actor:note:)`` changed.
public struct PolicyChange: Sendable, Hashable {
    public let setting: PolicySetting
    /// The effective value before (from the store or the defaults).
    public let before: String
    public let after: String
    /// False when the value was already in force: nothing stored, nothing audited.
    public let changed: Bool
    /// The whole policy in force afterwards.
    public let policy: ExpiryPolicy
}
