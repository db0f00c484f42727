import Foundation
import MICommands
@testable import MIStore

/// The policy: the config's defaults and no crew overrides; setting one ends the command with ``FakeStore/Reached``.
final class FakePolicy: StorePolicy {
    let store: FakeStore
    init(_ store: FakeStore) { self.store = store }

    func policy(defaults: ExpiryPolicy) throws -> EffectivePolicy {
        store.calls.append("policy")
        return EffectivePolicy(policy: defaults, sources: [:])
    }

    func setPolicy(_ setting: PolicySetting, to text: String, defaults: ExpiryPolicy, actor: String, note: String?) throws -> PolicyChange {
        throw store.reached("setPolicy")
    }

    /// No crew overrides (the fake directory keeps no crews unless a test gives it some).
    func crewPolicies() throws -> [CrewPolicy] { [] }

    func ownerPolicies(defaults: ExpiryPolicy) throws -> OwnerPolicies {
        OwnerPolicies(site: try policy(defaults: defaults).policy)
    }

    func setCrewPolicy(crew: String, _ setting: PolicySetting, to text: String?, defaults: ExpiryPolicy, actor: String,
                       note: String?) throws -> PolicyChange {
        throw store.reached("setCrewPolicy")
    }

    func forEachReminder(policy: ExpiryPolicy, filter: ReminderFilter, _ body: (Reminder) throws -> Void) throws {
        throw store.reached("forEachReminder")
    }
}
