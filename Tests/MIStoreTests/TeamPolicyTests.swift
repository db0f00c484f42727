import Foundation
import Testing
@testable import MIStore

/// A crew's policy overrides (`policy set --team`, issue 22) in the `policy` table, and expiry
/// runs limited to some owners, on both engines.
@Suite struct TeamPolicyTests {
    let defaults = ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30)

    @Test(arguments: TestEngine.allCases) func overridesAreStoredApartFromTheSitePolicyAndCopied(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        try store.setTeamPolicy(crew: "Kolonne Nord", .expiryDays, to: "14", defaults: defaults, actor: "mkhan")
        try store.setTeamPolicy(crew: "Kolonne Süd", .notifyDays, to: "1,3", defaults: defaults, actor: "tpatel")
        // The site policy ignores the crews' keys.
        #expect(try store.policy(defaults: defaults).policy == defaults)
        #expect(try store.policy(defaults: defaults).sources.isEmpty)
        let teams = try store.teamPolicies()
        #expect(teams.map(\.crew) == ["Kolonne Nord", "Kolonne Süd"])
        #expect(teams[0].applied(to: defaults) == ExpiryPolicy(expiryDays: 14, notifyDays: [1, 2], retentionDays: 30))
        #expect(teams[1].applied(to: defaults).notifyDays == [1, 3])
        // A crew's resulting policy must pass the rules; other settings are not a crew's.
        #expect(throws: StoreError.self) {
            try store.setTeamPolicy(crew: "Kolonne Süd", .expiryDays, to: "3", defaults: defaults, actor: "tpatel")
        }
        #expect(throws: StoreError.self) {
            try store.setTeamPolicy(crew: "Kolonne Süd", .retentionDays, to: "60", defaults: defaults, actor: "tpatel")
        }
        // A site value that would break a crew's policy is refused, naming the crew: Kolonne
        // Süd reminds on day 3, so the site cannot shorten expiry-days to 3.
        #expect { try store.setPolicy(.expiryDays, to: "3", defaults: defaults, actor: "slead") } throws: {
            ($0 as? StoreError)?.kind == .invalidInput && "\($0)".contains("Kolonne Süd")
        }
        #expect(try store.policy(defaults: defaults).policy == defaults)
        // store copy takes them along.
        let target = try makeStore(dir, engine: .sqlite, file: "target.sqlite")
        _ = try store.copy(to: target, append: false, actor: "lchen")
        #expect(try target.teamPolicies() == teams)
        // Removing one.
        let removed = try store.setTeamPolicy(crew: "Kolonne Nord", .expiryDays, to: nil, defaults: defaults, actor: "mkhan")
        #expect(removed.changed && removed.before == "14" && removed.after == "7")
        #expect(try store.teamPolicies().map(\.crew) == ["Kolonne Süd"])
        #expect(try store.auditEntries().filter { $0.command == "policy.set" }.map(\.object)
                == ["policy team Kolonne Nord expiry-days", "policy team Kolonne Süd notify-days",
                    "policy team Kolonne Nord expiry-days"])
    }

    /// Only/except owners, with and without a session scope: the statements number their own
    /// placeholders, so the scope's and the selection's must follow on.
    @Test(arguments: TestEngine.allCases) func expiryOfSomeOwners(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [
            ("jdoe/Old", "2026-11-01T09:00:00Z"), ("asmith/Old", "2026-11-01T09:00:00Z"),
            ("sobrien/Old", "2026-11-01T09:00:00Z"),
        ])
        func names(_ cutoff: ExpiryCutoff) throws -> [String] {
            var names: [String] = []
            try store.forEachExpirable(cutoff) { names.append($0.owner) }
            #expect(try store.countExpirable(cutoff) == names.count)
            return names.sorted()
        }
        let all = try store.expiryCutoff(days: 7)
        #expect(try names(all.with(days: 7, owners: .only(["jdoe"]))) == ["jdoe"])
        #expect(try names(all.with(days: 7, owners: .except(["jdoe"]))) == ["asmith", "sobrien"])
        #expect(try names(all.with(days: 30, owners: .only(["jdoe"]))).isEmpty)
        store.ownerScope = OwnerScope(owners: ["jdoe", "asmith"], crews: ["Kolonne Nord"])
        #expect(try names(all.with(days: 7, owners: .except(["jdoe"]))) == ["asmith"])
        #expect(try store.expire(all.with(days: 7, owners: .only(["asmith", "sobrien"])), actor: "mkhan") == 1)
        store.ownerScope = .everyone
        #expect(try names(all) == ["jdoe", "sobrien"])
    }
}
