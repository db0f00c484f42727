import Foundation

extension FormStore {
    /// The policy in force: values stored by ``setPolicy(_:to:defaults:actor:note:)`` override
    /// `defaults` (the console's config file) one setting at a time.
    public func policy(defaults: ExpiryPolicy) throws -> EffectivePolicy {
        try read { db in try Self.effectivePolicy(defaults: defaults, in: db) }
    }

    /// Stores one policy setting for every console sharing the store; audited (`policy.set`).
    /// Setting the value already in force changes nothing and is not audited
    /// (``PolicyChange/changed`` is false).
    ///
    /// The new value is parsed and the resulting policy checked inside the write transaction,
    /// against the other settings in force, so two foremen setting values at once cannot combine
    /// into a policy neither could set.
    ///
    /// - Throws: `.invalidInput` with the reason (not a number, zero or negative, a day listed
    ///   twice, a reminder on or after the expiry day, more reminders than the device cap); `.busy`.
    @discardableResult
    public func setPolicy(_ setting: PolicySetting, to text: String, defaults: ExpiryPolicy, actor: String,
                          note: String? = nil) throws -> PolicyChange {
        let actor = try Validate.name(actor, what: "actor")
        let change: PolicyChange = try write { db in
            let current = try Self.effectivePolicy(defaults: defaults, in: db).policy
            let updated = try setting.apply(text, to: current)
            if let problem = updated.problems.first {
                throw StoreError(.invalidInput, problem)
            }
            // Each crew's own values (`policy set --team`) must still make a usable policy with the new site value.
            for team in try Self.crewPolicies(in: db) {
                if let problem = team.applied(to: updated).problems.first {
                    throw StoreError(.invalidInput, "for crew \(team.crew), whose own values would then break a rule: \(problem) "
                                     + "(change or remove them first: policy set --team '\(team.crew)' …)")
                }
            }
            let before = setting.text(in: current), after = setting.text(in: updated)
            guard before != after else {
                return PolicyChange(setting: setting, before: before, after: after, changed: false, policy: updated)
            }
            let now = nowSeconds()
            try db.execute(literal: """
                INSERT INTO policy (key, value, set_at, set_by) VALUES (\(setting.storeKey), \(after), \(now), \(actor))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, set_at = excluded.set_at, set_by = excluded.set_by
                """)
            try audit(db, at: now, actor: actor, command: "policy.set", formId: nil, object: "policy \(setting)",
                             before: .object(JSONObject([(setting.rawValue, .string(before))])),
                             after: .object(JSONObject([(setting.rawValue, .string(after))])), note: note)
            return PolicyChange(setting: setting, before: before, after: after, changed: true, policy: updated)
        }
        if change.changed { logger.info("policy set", metadata: ["setting": "\(setting)", "value": "\(change.after)", "actor": "\(actor)"]) }
        return change
    }

    static func effectivePolicy(defaults: ExpiryPolicy, in db: any StoreDatabase) throws -> EffectivePolicy {
        try effectivePolicy(defaults: defaults, from: db.rows(policyQuery))
    }

    /// The store's policy rows, for ``effectivePolicy(defaults:from:)``.
    static let policyQuery = StoreStatement(literal: "SELECT key, value, set_at, set_by FROM policy")

    /// `defaults` with the store's values (the rows of ``policyQuery``) over them.
    static func effectivePolicy(defaults: ExpiryPolicy, from rows: [StoreRow]) throws -> EffectivePolicy {
        var policy = defaults
        var sources: [PolicySetting: PolicySource] = [:]
        for row in rows {
            guard let setting = PolicySetting.allCases.first(where: { $0.storeKey == row["key"] as String }) else { continue }
            do {
                policy = try setting.apply(row["value"], to: policy)
            } catch {
                throw StoreError(.database, "The store's policy value for \(setting) is unreadable: \(error.message)")
            }
            sources[setting] = .store(setBy: row["set_by"], setAt: Date(timeIntervalSince1970: row["set_at"]))
        }
        return EffectivePolicy(policy: policy, sources: sources)
    }
}
