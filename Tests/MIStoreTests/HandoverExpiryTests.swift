import Foundation
import Testing
@testable import MIStore

/// A form handed over at 05:38 is not trashed by that night's `expire`: a move restarts its
/// expiry, which does not count from `created` alone. And `modified` follows what the console
/// does to the form, not only the device's last save.
@Suite("Handovers keep their time")
struct HandoverExpiryTests {
    let week = ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30)

    func expirableNames(_ store: FormStore) throws -> [String] {
        var names: [String] = []
        try store.forEachExpirable(store.expiryCutoff(days: 7)) { names.append("\($0.owner)/\($0.name)") }
        return names
    }

    @Test(arguments: TestEngine.allCases) func aMoveRestartsTheClockByDefault(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock(expiryNow)
        let store = try ExpiryTests.store(dir, engine: engine, [("jdoe/Pump station 4", "2026-11-01T07:00:00Z"),
                                                                ("jdoe/Valve", "2026-11-01T07:00:00Z")], clock: clock)
        #expect(try expirableNames(store).sorted() == ["jdoe/Pump station 4", "jdoe/Valve"])

        let moved = try store.move(ref("jdoe/Pump station 4"), to: "asmith", actor: "mkhan", policyDefaults: week)
        #expect(moved.moved)
        #expect(moved.expires == expiryNow.addingTimeInterval(7 * 86_400), "seven days from the handover")
        #expect(try expirableNames(store) == ["jdoe/Valve"], "tonight's expire leaves the handed-over form")
        let summary = try #require(try store.summaries(FormFilter(owner: "asmith")).first)
        #expect(summary.modified.text == "2026-11-21T09:00:00Z" && summary.modified.date == expiryNow)
        #expect(summary.created.text == "2026-11-01T07:00:00Z", "created stays the device's")

        // Exactly seven days later it is not older than seven days; a second more and it is.
        clock.advance(days: 7)
        #expect(try expirableNames(store) == ["jdoe/Valve"])
        clock.advance(days: 1.0 / 86_400)
        #expect(try expirableNames(store).sorted() == ["asmith/Pump station 4", "jdoe/Valve"])

        // A move onto its owner changes nothing and reports the expiry in force.
        let noop = try store.move(ref("asmith/Pump station 4"), to: "asmith", actor: "mkhan", policyDefaults: week)
        #expect(!noop.moved && noop.expires == moved.expires)
    }

    /// `expiry-from created`, in the store (`policy set`) or in the config, keeps the old rule.
    @Test(arguments: TestEngine.allCases, [true, false])
    func countingFromCreatedKeepsTheOldRule(engine: TestEngine, storedPolicy: Bool) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [("jdoe/Pump", "2026-11-01T07:00:00Z")])
        var defaults = week
        if storedPolicy {
            try store.setPolicy(.expiryFrom, to: "created", defaults: week, actor: "mkhan")
        } else {
            defaults.expiryFrom = .created
        }
        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan", policyDefaults: defaults)
        #expect(moved.expires == (try Timestamp("2026-11-08T07:00:00Z")).date, "seven days after created")
        #expect(try expirableNames(store) == ["asmith/Pump"])
        // modified follows the move either way.
        #expect(try store.summaries().first?.modified.date == expiryNow)
    }

    /// A store value of expiry-days wins over the config's when the move computes the new date.
    @Test(arguments: TestEngine.allCases) func theExpiryDateUsesThePolicyInForce(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [("jdoe/Pump", "2026-11-20T07:00:00Z")])
        try store.setPolicy(.expiryDays, to: "10", defaults: week, actor: "mkhan")
        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan", policyDefaults: week)
        #expect(moved.expires == expiryNow.addingTimeInterval(10 * 86_400))
    }

    /// comment, submit, reopen and restore each set `modified` to the time of the change.
    @Test(arguments: TestEngine.allCases) func modifiedFollowsEveryChange(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock(expiryNow)
        let store = try ExpiryTests.store(dir, engine: engine, [("jdoe/Old", "2026-11-01T07:00:00Z")],
                                          completed: [("jdoe/Generator", "2026-11-10T07:00:00Z")], clock: clock)
        func modified(_ name: String) throws -> Date? {
            try store.summaries(FormFilter(owner: "jdoe")).first { $0.name == name }?.modified.date
        }
        #expect(try modified("Generator") == (try Timestamp("2026-11-10T07:00:00Z")).date)

        clock.advance(days: 1)
        try store.comment(ref("jdoe/Generator"), text: "Looks fine", author: "mkhan")
        #expect(try modified("Generator") == clock.now())

        clock.advance(days: 1)
        try store.submit(ref("jdoe/Generator"), actor: "mkhan")
        #expect(try modified("Generator") == clock.now())

        clock.advance(days: 1)
        try store.reopen(ref("jdoe/Generator"), reason: "gauge photo", actor: "mkhan", allowSubmitted: true)
        #expect(try modified("Generator") == clock.now())

        // Expire trashes "Old"; restore brings it back, modified at the restore.
        let expired = try store.expire(store.expiryCutoff(days: 7), actor: "mkhan")
        #expect(expired == 1)
        clock.advance(days: 1)
        try store.restore(ref("jdoe/Old"), actor: "mkhan")
        #expect(try modified("Old") == clock.now())
        // The export carries the new time, so the device sees the change.
        #expect(try store.form(ref("jdoe/Old")).document.modified.date == clock.now())
    }
}
