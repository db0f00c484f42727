import Foundation

/// Which policy each form owner gets: the site policy, or for a member of a crew with values of
/// its own (`policy set --team`) that crew's. A member of several such crews gets the crew whose
/// resulting expiry-days is the longest (its other values with it); on a tie, the crew first by
/// name. The one rule for every place an expiry, a purge or a reminder is computed
/// (``FormStore/ownerPolicies(defaults:)``).
public struct OwnerPolicies: Sendable {
    /// The site policy in force.
    public let site: ExpiryPolicy
    /// The owners whose crew overrides the site policy, with their policy and its crew.
    public let byOwner: [String: (crew: String, policy: ExpiryPolicy)]

    /// The site policy for everyone (no overrides, or no crews).
    public init(site: ExpiryPolicy) {
        self.site = site
        self.byOwner = [:]
    }

    /// `members` gives each overriding crew's members (crews the directory no longer has give none).
    public init(site: ExpiryPolicy, overrides: [CrewPolicy], members: (String) throws -> [String]) rethrows {
        self.site = site
        var byOwner: [String: (crew: String, policy: ExpiryPolicy)] = [:]
        for team in overrides.sorted(by: { $0.crew < $1.crew }) {
            let policy = team.applied(to: site)
            for member in try members(team.crew) {
                let owner = member.nfc  // as the store keeps owners
                if let held = byOwner[owner], held.policy.expiryDays >= policy.expiryDays { continue }
                byOwner[owner] = (team.crew, policy)
            }
        }
        self.byOwner = byOwner
    }

    /// Asked for every row of a listing: no crew overrides (the usual case) answer at once.
    public func policy(for owner: String) -> ExpiryPolicy {
        guard !byOwner.isEmpty else { return site }
        return byOwner[owner]?.policy ?? byOwner[owner.nfc]?.policy ?? site
    }

    /// When `form` expires under its owner's policy (``Expiry``); nil unless it is incomplete
    /// (only incomplete forms expire).
    public func expires(_ form: FormSummary) -> Date? {
        guard form.state == .incomplete else { return nil }
        return expires(owner: form.owner, clockStart: Expiry.clockStart(created: form.created.date, restartedAt: form.expiryResetAt))
    }

    /// When a form of `owner` whose clock started at `clockStart` expires.
    public func expires(owner: String, clockStart: Date) -> Date {
        Expiry.expires(clockStart: clockStart, policy: policy(for: owner))
    }

    /// The owners whose policy is not the site's, with theirs (``ReminderFilter/ownerPolicies``).
    public var differing: [String: ExpiryPolicy] {
        byOwner.compactMapValues { $0.policy == site ? nil : $0.policy }
    }

    /// The owners grouped by the days `key` gives their policy (expiry-days for `expire`,
    /// retention-days for `purge`): the site's days for every owner not named elsewhere (`nil`
    /// selection when nobody differs), then one selection per other number of days, fewest first.
    public func selections(by key: (ExpiryPolicy) -> Int) -> [(days: Int, owners: OwnerSelection?)] {
        let siteDays = key(site)
        var byDays: [Int: Set<String>] = [:]
        for (owner, entry) in byOwner where key(entry.policy) != siteDays { byDays[key(entry.policy), default: []].insert(owner) }
        guard !byDays.isEmpty else { return [(siteDays, nil)] }
        let others = byDays.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        return [(siteDays, .except(others))] + byDays.sorted { $0.key < $1.key }.map { ($0.key, .only($0.value)) }
    }
}
