import Foundation
import MIDirectory
import MIStore

/// Which policy each form owner gets (issue 22, `policy set --team`): the site policy, or for a
/// member of a crew with overrides that crew's. A member of several such crews gets the crew
/// whose resulting expiry-days is the longest (its notify-days with it); on a tie, the crew
/// first by name. One rule for every place an expiry or a reminder is computed.
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
    public init(site: ExpiryPolicy, overrides: [TeamPolicy], members: (String) throws -> [String]) rethrows {
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

    /// The owners whose policy is not the site's, with theirs (``ReminderFilter/ownerPolicies``).
    public var differing: [String: ExpiryPolicy] {
        byOwner.compactMapValues { $0.policy == site ? nil : $0.policy }
    }

    /// `expires`, computed with the site's expiry-days, moved to `owner`'s own.
    public func expires(_ siteExpires: Date, owner: String) -> Date {
        siteExpires.addingTimeInterval(Double(policy(for: owner).expiryDays - site.expiryDays) * 86_400)
    }

    /// Owners whose policy differs from the site's, grouped by policy (for per-group store reads).
    public var groups: [(policy: ExpiryPolicy, owners: Set<String>)] {
        var groups: [ExpiryPolicy: Set<String>] = [:]
        for (owner, entry) in byOwner where entry.policy != site { groups[entry.policy, default: []].insert(owner) }
        return groups.map { ($0.key, $0.value) }.sorted {
            ($0.policy.expiryDays, $0.owners.min() ?? "") < ($1.policy.expiryDays, $1.owners.min() ?? "")
        }
    }
}

extension Session {
    /// The policy per form owner: the store's crew overrides read once, and only the members of
    /// crews that have one. Without `teams` in the config (or without overrides) everyone gets
    /// the site policy.
    public func ownerPolicies() throws -> OwnerPolicies {
        let site = try policy().policy
        guard directory.teamSettings != nil else { return OwnerPolicies(site: site) }
        let overrides = try store().teamPolicies()
        guard !overrides.isEmpty else { return OwnerPolicies(site: site) }
        return try OwnerPolicies(site: site, overrides: overrides) { name in
            guard let crew = try directory.crew(named: name) else {
                logger.warning("a crew policy names a crew the directory does not have", metadata: ["crew": "\(name)"])
                return []
            }
            return try directory.memberIDs(of: crew)
        }
    }
}
