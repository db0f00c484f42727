import MICommands
import MIStore
import Testing

/// Ctrl-C stops a command at its next safe point. The console's signal flag is
/// stood in for by ``Session/interruptionRequested``, so these tests send no signal.
@Suite("Interrupted commands")
struct InterruptionTests {
    @Test func aListingStopsBetweenTwoRows() throws {
        let harness = try CommandHarness(user: "mkhan")
        let output = harness.output
        harness.session.interruptionRequested = { output.rows.count >= 1 }
        let error = harness.outcome(["forms"])
        #expect(error as? Interrupted == .listing)
        #expect(output.rows.count == 1, "one row listed, then it stopped; the store had three")
        #expect(Interrupted.listing.description == "interrupted: the listing stopped early; the rows above are not all")
    }

    @Test func aCommandWithoutCtrlCRunsToTheEnd() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.session.interruptionRequested = { false }
        try harness.run(["forms"])
        #expect(harness.output.rows.count == 3)
    }

    /// A Ctrl-C that came before the command (the flag as the prompt leaves it) is not reached
    /// by a command with no safe point: whoami and move run whole.
    @Test func commandsWithoutSafePointsAreNotStopped() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.session.interruptionRequested = { true }
        try harness.run(["move", "1", "asmith"])
        #expect(harness.store.calls == ["move 1 asmith foreman"])
        #expect(harness.output.records.count == 1)
    }
}

/// `expire` stops between two batches: the batches done stay done (each is one transaction),
/// the rest are left, and the message says how many went.
@Suite("Interrupted batches")
struct InterruptedBatchTests {
    @Test func expireStopsBetweenBatches() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.store.expirable = (10...14).map { FakeStore.summary(Int64($0), "jdoe", "Old \($0)", .incomplete) }
        let output = harness.output
        harness.session.interruptionRequested = { !output.rows.isEmpty }
        let error = harness.outcome(["expire", "--days", "7", "--yes"])
        #expect(error as? Interrupted == Interrupted(done: "moved 2 form(s) to the trash ('trash' lists them, "
                                                          + "'restore FORM' brings one back); the rest were left as they were"))
        #expect(harness.store.expired == 2, "the second batch never started")
        #expect(output.rows.count == 2, "every form that went is listed")
    }

    /// The Ctrl-C came during the last batch: everything went, so nothing to stop.
    @Test func aCtrlCDuringTheLastBatchChangesNothing() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.store.expirable = [FakeStore.summary(10, "jdoe", "Old", .incomplete)]
        harness.session.interruptionRequested = { true }
        try harness.run(["expire", "--days", "7", "--yes"])
        #expect(harness.store.expired == 1 && harness.output.rows.count == 1)
    }

    /// Nothing to expire, nothing to confirm: a script without --yes is not refused.
    @Test func nothingToExpireInAScriptIsNotAnError() throws {
        let harness = try CommandHarness(user: "mkhan")
        try harness.run(["expire", "--days", "7"])
        #expect(harness.output.messages == ["nothing to expire: no incomplete form was created more than 7 day(s) ago"])
        #expect(!harness.store.calls.contains("expire"))
    }
}

/// A bulk change stopped by the store itself (busy past the busy timeout, unreachable) is as
/// transient as that failure alone: the store's error kind, for exit status 2, with the count of
/// what was done.
@Suite("Bulk changes stopped by the store")
struct StoppedBulkChangeTests {
    @Test func aBusyStorePartWayKeepsItsKindAndSaysHowManyWereDone() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.store.forms.append(FakeStore.summary(4, "jdoe", "Valve 2", .incomplete))
        harness.store.forms.append(FakeStore.summary(5, "jdoe", "Valve 3", .incomplete))
        harness.store.failingMoves[4] = StoreError(.busy, "The store is busy.")
        let error = harness.outcome(["move", "jdoe/*", "asmith", "--yes"])
        let stopped = try #require(error as? StoreError, "\(String(describing: error))")
        #expect(stopped.kind == .busy)
        #expect(stopped.message.hasPrefix("move stopped at form 4 'Valve 2' of jdoe: The store is busy."))
        #expect(stopped.message.hasSuffix("1 of 3 form(s) done (listed above); the rest were left as they were"))
        #expect(harness.output.rows.count == 1)
    }

    @Test func aRefusalPartWayIsStillTheCommandsFailure() throws {
        let harness = try CommandHarness(user: "mkhan")
        harness.store.forms.append(FakeStore.summary(4, "jdoe", "Valve 2", .incomplete))
        harness.store.failingMoves[4] = StoreError(.conflict, "Form 4 changed since.")
        let error = harness.outcome(["move", "jdoe/*", "asmith", "--yes"])
        #expect(error is CommandError, "\(String(describing: error))")
    }
}
