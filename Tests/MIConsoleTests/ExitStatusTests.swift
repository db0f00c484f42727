import Testing
@testable import MIConsole

/// The exit status of a script that went on past its failures keeps their kind.
@Suite struct ExitStatusTests {
    @Test func onlyTransientFailuresExit2AnyOtherExits3() {
        #expect(ExitStatus.ofContinuedScript([.unreachable]) == .unreachable)
        #expect(ExitStatus.ofContinuedScript([.unreachable, .unreachable]) == .unreachable)
        #expect(ExitStatus.ofContinuedScript([.unreachable, .failure]) == .scriptStopped)
        #expect(ExitStatus.ofContinuedScript([.deliveriesHeld]) == .scriptStopped)
        #expect(ExitStatus.ofContinuedScript([.scriptStopped]) == .scriptStopped, "a sourced file that failed")
    }

    @Test func theRunsStatusComesFromItsOutcome() {
        #expect(Console.status(of: .finished(failures: 1), commandLine: false, failures: [.unreachable]) == .unreachable)
        #expect(Console.status(of: .quit(failures: 2), commandLine: false, failures: [.unreachable, .failure]) == .scriptStopped)
        #expect(Console.status(of: .finished(failures: 0), commandLine: false) == .success)
        #expect(Console.status(of: .stopped(.failure), commandLine: false) == .scriptStopped)
    }
}
