import Foundation
import Testing
@testable import MIStore

/// A crew's policy overrides (`policy set --team`) in the `policy` table, and expiry
/// runs limited to some owners, on both engines.
@Suite struct CrewPolicyStoreTests {
    let defaults = ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30)

    @Test(arguments: TestEngine.allCases) func overridesAreStoredApartFromTheSitePolicyAndCopied(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        try store.setCrewPolicy(crew: "Kolonne Nord", .expiryDays, to: "14", defaults: defaults, actor: "mkhan")
        try store.setCrewPolicy(crew: "Kolonne Süd", .notifyDays, to: "1,3", defaults: defaults, actor: "tpatel")
        // The site policy ignores the crews' keys.
        #expect(try store.policy(defaults: defaults).policy == defaults)
        #expect(try store.policy(defaults: defaults).sources.isEmpty)
        let teams = try store.crewPolicies()
        #expect(teams.map(\.crew) == ["Kolonne Nord", "Kolonne Süd"])
        #expect(teams[0].applied(to: defaults) == ExpiryPolicy(expiryDays: 14, notifyDays: [1, 2], retentionDays: 30))
        #expect(teams[1].applied(to: defaults).notifyDays == [1, 3])
        // A crew's resulting policy must pass the rules, whichever setting it sets.
        #expect(throws: StoreError.self) {
            try store.setCrewPolicy(crew: "Kolonne Süd", .expiryDays, to: "3", defaults: defaults, actor: "tpatel")
        }
        #expect(throws: StoreError.self) {
            try store.setCrewPolicy(crew: "Kolonne Süd", .retentionDays, to: "0", defaults: defaults, actor: "tpatel")
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
        #expect(try target.crewPolicies() == teams)
        // Removing one.
        let removed = try store.setCrewPolicy(crew: "Kolonne Nord", .expiryDays, to: nil, defaults: defaults, actor: "mkhan")
        #expect(removed.changed && removed.before == "14" && removed.after == "7")
        #expect(try store.crewPolicies().map(\.crew) == ["Kolonne Süd"])
        #expect(try store.auditEntries().filter { $0.command == "policy.set" }.map(\.object)
                == ["policy team Kolonne Nord expiry-days", "policy team Kolonne Süd notify-days",
                    "policy team Kolonne Nord expiry-days"])
    }

    /// A crew's foreman reads the audit rows of his crews' policies, not another crew's: on
    /// PostgreSQL too, where the prefix's length is a typed parameter of `substr`.
    @Test(arguments: TestEngine.allCases) func aCrewsAuditShowsItsOwnPolicyRowsOnly(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        try store.setCrewPolicy(crew: "Kolonne Nord", .expiryDays, to: "14", defaults: defaults, actor: "mkhan")
        try store.setCrewPolicy(crew: "Kolonne Süd", .notifyDays, to: "1,3", defaults: defaults, actor: "tpatel")
        store.reach = Reach(scope: OwnerScope(owners: ["jdoe", "zangstrom"], crews: ["Kolonne Nord"]))
        #expect(try store.auditEntries().filter { $0.command == "policy.set" }.map(\.object)
                == ["policy team Kolonne Nord expiry-days"])
        store.reach = Reach(scope: OwnerScope(owners: ["asmith"], crews: ["Kolonne Süd"]))
        #expect(try store.auditEntries().filter { $0.command == "policy.set" }.map(\.object)
                == ["policy team Kolonne Süd notify-days"])
    }

    /// Every setting may be a crew's; the store decides each owner's policy from its rows and
    /// the crews' members (``CrewNaming``), and groups the owners per retention-days for purge.
    @Test(arguments: TestEngine.allCases) func theStoreDecidesEachOwnersPolicy(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        try store.setCrewPolicy(crew: "Kolonne Nord", .retentionDays, to: "5", defaults: defaults, actor: "mkhan")
        try store.setCrewPolicy(crew: "Kolonne Nord", .expiryFrom, to: "created", defaults: defaults, actor: "mkhan")
        // Without crews (no naming) everyone has the site's policy.
        #expect(try store.ownerPolicies(defaults: defaults).byOwner.isEmpty)
        store.reach = Reach(scope: .everyone, naming: Members(["Kolonne Nord": ["jdoe", "zangstrom"]]))
        let policies = try store.ownerPolicies(defaults: defaults)
        #expect(policies.policy(for: "jdoe") == ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 5, expiryFrom: .created))
        #expect(policies.policy(for: "asmith") == defaults)
        let cutoffs = store.purgeCutoffs(policies)
        #expect(cutoffs.map(\.days) == [30, 5])
        #expect(cutoffs.map(\.owners) == [.except(["jdoe", "zangstrom"]), .only(["jdoe", "zangstrom"])])
        #expect(store.expiryCutoffs(policies).map(\.days) == [7])
        #expect(store.expiryCutoffs(policies).first?.owners == nil)
    }

    /// Crews and their members, as a directory would give them.
    final class Members: CrewNaming, @unchecked Sendable {
        let crews: [String: [String]]
        init(_ crews: [String: [String]]) { self.crews = crews }
        func crews(of owner: String) throws -> [String] { crews.filter { $0.value.contains(owner) }.keys.sorted() }
        func foremenToTell(movedFrom previous: String, to owner: String, actor: String) throws -> [CrewForemanToTell] { [] }
        func foremen(supervising owner: String) throws -> [String] { [] }
        func members(ofCrew crew: String) throws -> [String]? { crews[crew] }
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
        store.reach = Reach(scope: OwnerScope(owners: ["jdoe", "asmith"], crews: ["Kolonne Nord"]))
        #expect(try names(all.with(days: 7, owners: .except(["jdoe"]))) == ["asmith"])
        #expect(try store.expire(all.with(days: 7, owners: .only(["asmith", "sobrien"])), actor: "mkhan") == 1)
        store.reach = .everyone
        #expect(try names(all) == ["jdoe", "sobrien"])
    }

    /// A purge of some owners, inside a session scope too: its statements number their own
    /// placeholders as expiry's do.
    @Test(arguments: TestEngine.allCases) func purgeOfSomeOwners(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock(expiryNow)
        let store = try ExpiryTests.store(dir, engine: engine, [
            ("jdoe/Old", "2026-11-01T09:00:00Z"), ("asmith/Old", "2026-11-01T09:00:00Z"),
            ("sobrien/Old", "2026-11-01T09:00:00Z"),
        ], clock: clock)
        _ = try store.expire(try store.expiryCutoff(days: 7), actor: "mkhan")
        clock.advance(days: 3)
        let all = try store.purgeCutoff(days: 2)
        func names(_ owners: OwnerSelection) throws -> [String] {
            let cutoff = PurgeCutoff(days: 2, now: all.now, owners: owners)
            var names: [String] = []
            try store.forEachPurgeable(cutoff) { names.append($0.form.owner) }
            #expect(try store.countPurgeable(cutoff) == names.count)
            return names.sorted()
        }
        #expect(try names(.only(["jdoe"])) == ["jdoe"])
        #expect(try names(.except(["jdoe"])) == ["asmith", "sobrien"])
        store.reach = Reach(scope: OwnerScope(owners: ["jdoe", "asmith"], crews: ["Kolonne Nord"]))
        #expect(try names(.except(["jdoe"])) == ["asmith"])
        #expect(try store.purge(PurgeCutoff(days: 2, now: all.now, owners: .only(["asmith", "sobrien"])), actor: "mkhan") == 1)
        store.reach = .everyone
        var left: [String] = []
        try store.forEachTrashedForm { left.append($0.form.owner) }
        #expect(left.sorted() == ["jdoe", "sobrien"])
    }
}
