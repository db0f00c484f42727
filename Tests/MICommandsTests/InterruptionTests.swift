import MICommands
import Testing

/// Ctrl-C stops a command at its next safe point (issue 26). The console's signal flag is
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
