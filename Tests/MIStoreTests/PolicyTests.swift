import Foundation
import Testing
@testable import MIStore

@Suite("Notification policy")
struct PolicyTests {
    let config = ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30)

    @Test(arguments: TestEngine.allCases) func configValuesUntilTheStoreHasItsOwn(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine, clock: TestClock(expiryNow))
        let before = try store.policy(defaults: config)
        #expect(before.policy == config && before.sources.isEmpty)
        #expect(before.source(of: .expiryDays) == .config)

        let change = try store.setPolicy(.notifyDays, to: "1,2,5", defaults: config, actor: "mkhan", note: "more nagging")
        #expect(change.before == "1,2" && change.after == "1,2,5")
        let after = try store.policy(defaults: config)
        #expect(after.policy.notifyDays == [1, 2, 5] && after.policy.expiryDays == 7)
        #expect(after.source(of: .notifyDays) == .store(setBy: "mkhan", setAt: expiryNow))
        #expect(after.source(of: .expiryDays) == .config)

        try store.setPolicy(.expiryDays, to: "10", defaults: config, actor: "mkhan")
        try store.setPolicy(.retentionDays, to: "90", defaults: config, actor: "mkhan")
        #expect(try store.policy(defaults: config).policy == ExpiryPolicy(expiryDays: 10, notifyDays: [1, 2, 5], retentionDays: 90))
        // The store wins over any config.
        #expect(try store.policy(defaults: .defaults).policy.expiryDays == 10)

        let audit = try store.auditEntries()
        #expect(audit.map(\.command) == ["policy.set", "policy.set", "policy.set"])
        #expect(audit[0].object == "policy notify-days" && audit[0].note == "more nagging")
        #expect(audit[0].before == #"{"notify-days":"1,2"}"# && audit[0].after == #"{"notify-days":"1,2,5"}"#)
    }

    @Test(arguments: TestEngine.allCases, [
        (PolicySetting.expiryDays, "seven", "expiry-days: 'seven' is not a whole number of days."),
        (.expiryDays, "7.5", "expiry-days: '7.5' is not a whole number of days."),
        (.expiryDays, "", "expiry-days: '' is not a whole number of days."),
        (.expiryDays, "0", "expiry-days must be between 1 and 3650 days (got 0)."),
        (.expiryDays, "-3", "expiry-days must be between 1 and 3650 days (got -3)."),
        // Nine digits gave dates in the year 506713 and an iCalendar DTSTART no reader takes.
        (.expiryDays, "999999999", "expiry-days must be between 1 and 3650 days (got 999999999)."),
        (.expiryDays, "3651", "expiry-days must be between 1 and 3650 days (got 3651)."),
        (.retentionDays, "0", "retention-days must be between 1 and 3650 days (got 0)."),
        (.retentionDays, "99999", "retention-days must be between 1 and 3650 days (got 99999)."),
        (.retentionDays, "x", "retention-days: 'x' is not a whole number of days."),
        (.notifyDays, "1,x", "notify-days: 'x' in '1,x' is not a whole number of days."),
        (.notifyDays, "1,,2", "notify-days: '' in '1,,2' is not a whole number of days."),
        (.notifyDays, "0,1", "notify-days: 0 is out of range; reminder days must be between 1 and 3650 days after creation and before the expiry day."),
        (.notifyDays, "-1", "notify-days: -1 is out of range; reminder days must be between 1 and 3650 days after creation and before the expiry day."),
        (.notifyDays, "1,2,1", "notify-days: day 1 is listed twice."),
        (.notifyDays, "1,7", "notify-days: a reminder on day 7 would never fire: forms expire after 7 days, so reminders must come before day 7."),
        (.notifyDays, "9", "notify-days: a reminder on day 9 would never fire: forms expire after 7 days, so reminders must come before day 7."),
        // Shortening expiry below a reminder day is refused for the same reason.
        (.expiryDays, "2", "notify-days: a reminder on day 2 would never fire: forms expire after 2 days, so reminders must come before day 2."),
    ])
    func badValuesAreRefusedWithTheirReason(engine: TestEngine, example: (setting: PolicySetting, value: String, reason: String)) throws {
        let (setting, value, reason) = example
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        #expect { try store.setPolicy(setting, to: value, defaults: config, actor: "mkhan") } throws: { error in
            let error = error as! StoreError
            return error.kind == .invalidInput && error.message == reason
        }
        #expect(try store.policy(defaults: config).sources.isEmpty, "nothing stored")
        #expect(try store.auditEntries().isEmpty, "nothing audited")
    }

    @Test(arguments: TestEngine.allCases) func moreRemindersThanTheDeviceHoldsAreRefused(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        try store.setPolicy(.expiryDays, to: "100", defaults: config, actor: "mkhan")
        try store.setPolicy(.notifyDays, to: (1...64).map(String.init).joined(separator: ","), defaults: config, actor: "mkhan")
        #expect { try store.setPolicy(.notifyDays, to: (1...65).map(String.init).joined(separator: ","), defaults: config, actor: "mkhan") }
            throws: { error in
                (error as? StoreError)?.message
                    == "notify-days: 65 reminders per form are more than a device holds (64 pending notifications)."
            }
        #expect(try store.policy(defaults: config).policy.notifyDays.count == 64)
    }

    @Test(arguments: TestEngine.allCases) func expiryFromIsASettingLikeTheOthers(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine, clock: TestClock(expiryNow))
        #expect(try store.policy(defaults: config).policy.expiryFrom == .assigned, "the default")
        let change = try store.setPolicy(.expiryFrom, to: "created", defaults: config, actor: "mkhan")
        #expect(change.changed && change.before == "assigned" && change.after == "created")
        let after = try store.policy(defaults: config)
        #expect(after.policy.expiryFrom == .created && after.source(of: .expiryFrom) == .store(setBy: "mkhan", setAt: expiryNow))
        #expect { try store.setPolicy(.expiryFrom, to: "moved", defaults: config, actor: "mkhan") } throws: { error in
            (error as? StoreError)?.message == "expiry-from: 'moved' is neither 'created' nor 'assigned'."
        }
        #expect(try store.auditEntries().map(\.after) == [#"{"expiry-from":"created"}"#])
    }

    /// Setting the value in force is no change: nothing stored, nothing audited (it was audited
    /// as `policy.set` with the same before and after).
    @Test(arguments: TestEngine.allCases) func theValueInForceIsNotAChange(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let same = try store.setPolicy(.expiryDays, to: "7", defaults: config, actor: "mkhan")
        #expect(!same.changed && same.before == "7" && same.after == "7")
        #expect(try store.policy(defaults: config).sources.isEmpty)
        try store.setPolicy(.notifyDays, to: "1,3", defaults: config, actor: "mkhan")
        #expect(try !store.setPolicy(.notifyDays, to: "1,3", defaults: config, actor: "lchen").changed)
        #expect(try store.auditEntries().map(\.actor) == ["mkhan"])
        #expect(try store.policy(defaults: config).source(of: .notifyDays) != .config)
    }

    @Test(arguments: TestEngine.allCases) func noRemindersAtAll(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        try store.setPolicy(.notifyDays, to: "none", defaults: config, actor: "mkhan")
        #expect(try store.policy(defaults: config).policy.notifyDays == [])
    }
}

@Suite("Policy ranges")
struct PolicyRangeTests {
    @Test(arguments: TestEngine.allCases) func theEdgesOfTheRangeAreAccepted(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        for (setting, value) in [(PolicySetting.expiryDays, "3650"), (.retentionDays, "3650"), (.notifyDays, "1,3649"),
                                 (.notifyDays, "1"), (.expiryDays, "2")] {
            _ = try store.setPolicy(setting, to: value, defaults: .defaults, actor: "mkhan", note: nil)
        }
        #expect(try store.policy(defaults: .defaults).policy == ExpiryPolicy(expiryDays: 2, notifyDays: [1], retentionDays: 3650))
    }

    @Test(arguments: TestEngine.allCases) func expiryRunsTakeTheSameRange(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        #expect(throws: StoreError.self) { _ = try store.expiryCutoff(days: 3651) }
        #expect(throws: StoreError.self) { _ = try store.expiryCutoff(days: 0) }
        _ = try store.expiryCutoff(days: 3650)
    }
}
