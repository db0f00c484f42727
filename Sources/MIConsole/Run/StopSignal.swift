import Foundation
import MICommands
import Synchronization

/// A script run (`-c`, `-f`, a pipe) asked to stop by a signal: Ctrl-C (SIGINT), a timer or
/// `kill` (SIGTERM), a closed terminal or session (SIGHUP). Each only raises the flag Ctrl-C
/// raises (``Interruption``), so the run ends as at Ctrl-C: the command stops at its next safe
/// point, no further line runs, and what `\o` collected gets its file (a JSON array its `]`)
/// instead of being lost with its temporary file. The process then exits 128 + the signal, as
/// shells report it. A second signal while a command has no safe point to reach ends the
/// process by that signal.
enum StopSignal {
    private static let received = Atomic<Int32>(0)

    /// Installs the handler for the three signals; one the process was started ignoring
    /// (`nohup`, a background job's SIGINT) stays ignored.
    static func install() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(number, onStopSignal)
            if let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                signal(number, SIG_IGN)
            }
        }
    }

    /// From the handler: the first signal is the one the run reports.
    fileprivate static func record(_ number: Int32) {
        _ = received.compareExchange(expected: 0, desired: number, ordering: .relaxed)
    }

    /// What stopped the run, for `FILE:LINE: … : the script stopped here`.
    static var reason: String {
        switch received.load(ordering: .relaxed) {
        case SIGTERM: "stopped by SIGTERM"
        case SIGHUP: "stopped by SIGHUP (the terminal or session ended)"
        default: "interrupted (Ctrl-C)"
        }
    }

    /// The exit status of a run that stopped on ``ExitStatus/interrupted``: 128 + the signal.
    static func exitStatus(for status: ExitStatus) -> ExitStatus {
        guard status == .interrupted else { return status }
        switch received.load(ordering: .relaxed) {
        case SIGTERM: return .terminated
        case SIGHUP: return .hungUp
        default: return .interrupted
        }
    }
}

private let onStopSignal: @convention(c) (Int32) -> Void = { number in
    StopSignal.record(number)
    if Interruption.request() {
        signal(number, SIG_DFL)
        raise(number)
    }
}
