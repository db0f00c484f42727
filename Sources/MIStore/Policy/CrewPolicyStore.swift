import Foundation

/// One value a crew's policy overrides (`policy set --team`), by whom and when.
public struct CrewPolicyValue: Sendable, Hashable {
    public let text: String
    public let setBy: String
    public let setAt: Date

    public init(text: String, setBy: String, setAt: Date) {
        self.text = text
        self.setBy = setBy
        self.setAt = setAt
    }
}

/// A crew's own values in place of the site policy's (``PolicySetting/crewSettings``: every
/// setting that decides when its members' forms expire, are reminded and are purged).
public struct CrewPolicy: Sendable, Hashable {
    /// The crew's name as the directory gives it (``Crew/name``).
    public let crew: String
    public let values: [PolicySetting: CrewPolicyValue]

    public init(crew: String, values: [PolicySetting: CrewPolicyValue]) {
        self.crew = crew
        self.values = values
    }

    /// `site` with this crew's values in place of the site's. A stored value that no longer
    /// parses is left out (the site's value holds); ``FormStore/setCrewPolicy`` never stores one.
    public func applied(to site: ExpiryPolicy) -> ExpiryPolicy {
        var policy = site
        for setting in PolicySetting.crewSettings {
            guard let value = values[setting], let updated = try? setting.apply(value.text, to: policy) else { continue }
            policy = updated
        }
        return policy
    }
}

extension PolicySetting {
    /// The settings a crew may override: every one, since each decides when the crew's forms
    /// expire, are reminded or are purged.
    public static let crewSettings: [PolicySetting] = PolicySetting.allCases

    /// The `policy` table's key of this setting for `crew`: `team/Kolonne Nord/expiryDays`.
    /// The site policy never reads these keys (it matches ``storeKey`` exactly).
    func crewStoreKey(_ crew: String) -> String { "team/\(crew)/\(storeKey)" }

    static let crewKeyPrefix = "team/"

    /// The refusal of a crew override of this setting (one that is not in ``crewSettings``).
    public var notACrewSetting: String {
        "a crew may override only " + Self.crewSettings.map(\.rawValue).joined(separator: ", ") + ", not \(self)"
    }
}

extension FormStore {
    /// Every crew's overrides, by crew name; crews without one are absent.
    public func crewPolicies() throws -> [CrewPolicy] {
        try read { db in try Self.crewPolicies(in: db) }
    }

    static func crewPolicies(in db: any StoreDatabase) throws -> [CrewPolicy] {
        crewPolicies(from: try db.rows(policyQuery))
    }

    /// The crews' values among the rows of ``policyQuery``.
    static func crewPolicies(from rows: [StoreRow]) -> [CrewPolicy] {
        var byCrew: [String: [PolicySetting: CrewPolicyValue]] = [:]
        for row in rows {
            let key: String = row["key"]
            guard key.hasPrefix(PolicySetting.crewKeyPrefix), let slash = key.lastIndex(of: "/") else { continue }
            let crew = String(key[key.index(key.startIndex, offsetBy: PolicySetting.crewKeyPrefix.count)..<slash])
            let storeKey = key[key.index(after: slash)...]
            guard !crew.isEmpty, let setting = PolicySetting.crewSettings.first(where: { $0.storeKey == storeKey }) else { continue }
            byCrew[crew, default: [:]][setting] = CrewPolicyValue(text: row["value"], setBy: row["set_by"],
                                                                  setAt: Date(timeIntervalSince1970: row["set_at"]))
        }
        return byCrew.keys.sorted().map { CrewPolicy(crew: $0, values: byCrew[$0]!) }
    }

    /// The policy of every form owner: the site's (the store's values over `defaults`, the
    /// config's), and for the members of a crew with values of its own that crew's, its members
    /// asked of ``crewNaming`` (without crews everyone gets the site's). What every expiry,
    /// purge and reminder is computed with.
    public func ownerPolicies(defaults: ExpiryPolicy) throws -> OwnerPolicies {
        let rows = try read { db in try db.rows(Self.policyQuery) }
        return try ownerPolicies(defaults: defaults, from: rows)
    }

    /// ``ownerPolicies(defaults:)`` from the rows of ``policyQuery`` already read (a move reads
    /// them with its form).
    func ownerPolicies(defaults: ExpiryPolicy, from rows: [StoreRow]) throws -> OwnerPolicies {
        let site = try Self.effectivePolicy(defaults: defaults, from: rows).policy
        let overrides = Self.crewPolicies(from: rows)
        guard let naming = crewNaming, !overrides.isEmpty else { return OwnerPolicies(site: site) }
        return try OwnerPolicies(site: site, overrides: overrides) { crew in
            guard let members = try naming.members(ofCrew: crew) else {
                logger.warning("a crew policy names a crew the directory does not have", metadata: ["crew": "\(crew)"])
                return []
            }
            return members
        }
    }

    /// Sets (or with `text` nil removes) one of `crew`'s overrides; audited (`policy.set`, object
    /// `policy team Kolonne Nord expiry-days`). The crew's resulting policy (the site's in force
    /// with the crew's overrides) must pass ``ExpiryPolicy/problems``; checked inside the write
    /// transaction, as ``setPolicy(_:to:defaults:actor:note:)`` does. ``PolicyChange/before`` and
    /// `after` are the values in force for the crew (the site's where it has no override);
    /// nothing is stored or audited when the override is as asked already.
    @discardableResult
    public func setCrewPolicy(crew: String, _ setting: PolicySetting, to text: String?, defaults: ExpiryPolicy,
                              actor: String, note: String? = nil) throws -> PolicyChange {
        let actor = try Validate.name(actor, what: "actor")
        guard PolicySetting.crewSettings.contains(setting) else {
            throw StoreError(.invalidInput, setting.notACrewSetting)
        }
        guard !crew.isEmpty, !crew.contains("/") else { throw StoreError(.invalidInput, "no crew name '\(crew)' can hold a policy") }
        let change: PolicyChange = try write { db in
            let site = try Self.effectivePolicy(defaults: defaults, in: db).policy
            let existing = try Self.crewPolicies(in: db).first { $0.crew == crew }
            let current = existing?.applied(to: site) ?? site
            var values = existing?.values ?? [:]
            let updated: ExpiryPolicy
            if let text {
                updated = try setting.apply(text, to: current)
            } else {
                values[setting] = nil
                updated = CrewPolicy(crew: crew, values: values).applied(to: site)
            }
            if let problem = updated.problems.first {
                throw StoreError(.invalidInput, problem)
            }
            let before = setting.text(in: current), after = setting.text(in: updated)
            let hadOverride = existing?.values[setting] != nil
            guard before != after || (text == nil) == hadOverride else {
                return PolicyChange(setting: setting, before: before, after: after, changed: false, policy: updated)
            }
            let now = nowSeconds()
            let key = setting.crewStoreKey(crew)
            if text == nil {
                try db.execute(literal: "DELETE FROM policy WHERE key = \(key)")
            } else {
                try db.execute(literal: """
                    INSERT INTO policy (key, value, set_at, set_by) VALUES (\(key), \(after), \(now), \(actor))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, set_at = excluded.set_at, set_by = excluded.set_by
                    """)
            }
            let afterJSON: JSONValue = text == nil ? .string("site") : .string(after)
            try audit(db, at: now, actor: actor, command: "policy.set", formId: nil, object: "policy team \(crew) \(setting)",
                      before: .object(JSONObject([(setting.rawValue, .string(hadOverride ? before : "site"))])),
                      after: .object(JSONObject([(setting.rawValue, afterJSON)])), note: note)
            return PolicyChange(setting: setting, before: before, after: after, changed: true, policy: updated)
        }
        if change.changed {
            logger.info("team policy set", metadata: ["crew": "\(crew)", "setting": "\(setting)",
                                                      "value": "\(text == nil ? "site" : change.after)", "actor": "\(actor)"])
        }
        return change
    }
}
