import Synchronization

/// Ctrl-C while a command runs (a `report --state … --dir …` over hundreds of forms must stop when
/// asked). The console's SIGINT handler only raises a flag (an atomic store is all a signal
/// handler may do); long commands look at it at their safe points — between forms, between
/// rows of a listing, between the batches of `expire` and `purge` — and stop there with
/// ``Interrupted``, which says what was done. What the command had not committed is rolled
/// back by the transaction it was in; the console goes back to the prompt, a script ends (exit
/// 130, as shells report SIGINT).
public enum Interruption {
    private static let requested = Atomic<Bool>(false)
    private static let commandRunning = Atomic<Bool>(false)

    /// From the signal handler. Returns true when a command was running and had already been
    /// asked to stop: a second Ctrl-C, for a command that has no safe point to reach (waiting on
    /// a busy store or the directory); the caller then lets the signal end the process.
    public static func request() -> Bool {
        let again = requested.exchange(true, ordering: .relaxed)
        return again && commandRunning.load(ordering: .relaxed)
    }

    public static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// A person typed a new line at the prompt: a Ctrl-C pressed before it (on the line being
    /// typed, or at the end of the last command) is not meant for what comes next. Scripts never
    /// forget one: it ends the run.
    public static func forget() {
        requested.store(false, ordering: .relaxed)
    }

    public static func commandStarts() {
        commandRunning.store(true, ordering: .relaxed)
    }

    public static func commandEnded() {
        commandRunning.store(false, ordering: .relaxed)
    }
}

/// A command stopped at a safe point by Ctrl-C. Not a failure at the prompt (said on stderr,
/// the prompt carries on); a script ends with exit 130.
public struct Interrupted: Error, CustomStringConvertible, Equatable {
    /// What was done before it stopped (`215 of 409 reports written`).
    public let done: String

    public init(done: String) { self.done = done }

    public var description: String { "interrupted: \(done)" }
}

extension Interrupted {
    /// What a listing says when it stops between two rows.
    public static let listing = Interrupted(done: "the listing stopped early; the rows above are not all")
}

extension Session {
    /// A safe point of a long command: throws ``Interrupted`` saying `done` when Ctrl-C was
    /// pressed since the command started.
    public func checkpoint(_ done: @autoclosure () -> String) throws {
        if interruptionRequested() { throw Interrupted(done: done()) }
    }

    /// The safe point between two rows of a listing.
    public func checkpointRow() throws {
        if interruptionRequested() { throw Interrupted.listing }
    }
}
