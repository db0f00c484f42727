import Foundation
import Testing
@testable import MIStore

@Suite("Reminder plan")
struct ReminderTests {
    func plan(_ store: FormStore, _ policy: ExpiryPolicy, owner: String? = nil,
              filter: ReminderFilter = ReminderFilter()) throws -> [Reminder] {
        var reminders: [Reminder] = []
        var filter = filter
        filter.owner = owner
        try store.forEachReminder(policy: policy, filter: filter) { reminders.append($0) }
        return reminders
    }

    @Test(arguments: TestEngine.allCases) func remindersAfterCreationWhileIncompleteAndBeforeExpiry(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [("jdoe/Pump", "2026-11-20T10:00:00+01:00"),
                                                ("asmith/Old", "2026-11-10T07:00:00Z")],
                                          completed: [("jdoe/Done", "2026-11-20T07:00:00Z")])
        let reminders = try plan(store, ExpiryPolicy(expiryDays: 7, notifyDays: [2, 1], retentionDays: 30))
        // asmith's form is past expiry: its reminders fired long ago. The completed form has none.
        #expect(reminders.map { "\($0.form.owner)/\($0.form.name) d\($0.day)" }
                == ["asmith/Old d1", "asmith/Old d2", "jdoe/Pump d1", "jdoe/Pump d2"])
        let pump = reminders.filter { $0.form.owner == "jdoe" }
        #expect(pump.map(\.at) == [Date(timeIntervalSince1970: 1_795_251_600), Date(timeIntervalSince1970: 1_795_338_000)])
        #expect(pump.allSatisfy { $0.pending && !$0.dropped }, "one firing exactly now counts as pending")
        #expect(pump[0].expiresAt == Date(timeIntervalSince1970: 1_795_251_600 + 6 * 86_400))
        #expect(reminders.filter { $0.form.owner == "asmith" }.allSatisfy { !$0.pending })
        #expect(try plan(store, .defaults, owner: "asmith").count == 2)
    }

    @Test(arguments: TestEngine.allCases) func aDeviceHoldsTheEarliest64PendingReminders(engine: TestEngine) throws {
        let dir = try TempDir()
        // 40 forms of jdoe, created ten minutes apart up to now; 3 notify days: 120 reminders.
        var forms: [(String, String)] = []
        for index in 0..<40 {
            let created = expiryNow.addingTimeInterval(-Double(index) * 600)
            forms.append(("jdoe/Form \(index)", created.iso8601))
        }
        forms.append(("asmith/Only one", "2026-11-21T08:00:00Z"))
        let store = try ExpiryTests.store(dir, engine: engine, forms)
        let reminders = try plan(store, ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2, 3], retentionDays: 30), owner: "jdoe")
        #expect(reminders.count == 120)
        #expect(reminders.allSatisfy { $0.pending })
        let kept = reminders.filter { !$0.dropped }, dropped = reminders.filter(\.dropped)
        #expect(kept.count == 64 && dropped.count == 56)
        #expect(kept.map(\.at).max()! <= dropped.map(\.at).min()!, "the earliest are kept")
        #expect(reminders.map(\.at) == reminders.map(\.at).sorted(), "by time")
        // Another user's plan is capped on its own.
        let all = try plan(store, ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2, 3], retentionDays: 30))
        #expect(all.filter { $0.form.owner == "asmith" }.count == 3 && all.filter { $0.form.owner == "asmith" && $0.dropped }.isEmpty)
    }

    @Test(arguments: TestEngine.allCases) func firedRemindersDoNotTakeDeviceSlots(engine: TestEngine) throws {
        let dir = try TempDir()
        var forms: [(String, String)] = []
        // 70 forms created 1.5 days ago: day-1 reminders fired; 70 day-2 and 70 day-3 pending.
        for index in 0..<70 { forms.append(("jdoe/F\(index)", "2026-11-19T21:00:00Z")) }
        let store = try ExpiryTests.store(dir, engine: engine, forms)
        let reminders = try plan(store, ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2, 3], retentionDays: 30))
        #expect(reminders.filter { !$0.pending }.count == 70)
        #expect(reminders.filter { $0.pending && !$0.dropped }.count == 64)
        #expect(reminders.filter(\.dropped).count == 76)
        #expect(reminders.filter { $0.pending && !$0.dropped }.allSatisfy { $0.day == 2 })
    }

    @Test(arguments: TestEngine.allCases) func dueRemindersSinceTheDayBefore(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: engine, [
            ("jdoe/Fires now", "2026-11-20T09:00:00Z"),             // d1 exactly now: due
            ("jdoe/Fired a day ago", "2026-11-19T09:00:00Z"),       // d1 24 h ago: reported yesterday; d2 now
            ("jdoe/Fired an hour ago", "2026-11-20T08:00:00Z"),     // d1 an hour ago: due
            ("asmith/Fires in a second", "2026-11-20T09:00:01Z"),   // not yet
            ("asmith/Fired 25 hours ago", "2026-11-19T08:00:00Z"),  // d1 too old; d2 an hour ago: due
        ])
        let policy = ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30)
        let due = try plan(store, policy, filter: ReminderFilter(due: true))
        #expect(due.map { "\($0.form.owner)/\($0.form.name) d\($0.day)" } == [
            "asmith/Fired 25 hours ago d2", "jdoe/Fired an hour ago d1", "jdoe/Fired a day ago d2", "jdoe/Fires now d1",
        ], "owner by owner, each by time")
        // --from widens the window (a cron job that missed a day).
        let since = try plan(store, policy, filter: ReminderFilter(from: Date(timeIntervalSince1970: 1_795_251_600 - 2 * 86_400), due: true))
        #expect(since.count == 6)
        // --from/--to alone select by fire time, fired or not.
        let tomorrow = try plan(store, policy, filter: ReminderFilter(from: Date(timeIntervalSince1970: 1_795_251_601),
                                                                     to: Date(timeIntervalSince1970: 1_795_251_600 + 86_400)))
        #expect(tomorrow.map { "\($0.form.name) d\($0.day)" } == ["Fires in a second d1", "Fired an hour ago d2"])
        #expect(tomorrow.allSatisfy { $0.pending })
    }
}
