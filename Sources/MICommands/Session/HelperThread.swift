import Foundation

/// Work started ahead of time on threads of its own while the console logs in: the directory
/// connection, the store, readline's set-up.
public enum HelperThread {
    /// Starts `body` on a new thread.
    ///
    /// A plain POSIX thread: Foundation's `Thread` costs about 0.4 ms more for the first one of
    /// the process, and the first one starts at the very beginning of the run, before the
    /// command line is parsed.
    ///
    /// `yielding`: the thread runs with a nice value of 10 (Linux sets it for the calling thread
    /// only), so it gets a core only when the login does not need it. Opening the store and
    /// setting readline up only get ahead of time; on a machine with two cores, the command-line
    /// parse, the TLS handshake and slapd's side of it already keep both busy at start-up. A
    /// thread the console waits for takes a core as soon as the waiting thread frees one.
    public static func start(yielding: Bool, _ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(yielding: yielding, body: body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
            if work.yielding { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
            work.body()
            return nil
        }, work)
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread (the process is out of them): do the work here, as it would be done
            // without getting ahead.
            Unmanaged<Work>.fromOpaque(work).takeRetainedValue().body()
        }
    }

    private final class Work: Sendable {
        let yielding: Bool
        let body: @Sendable () -> Void

        init(yielding: Bool, body: @escaping @Sendable () -> Void) {
            self.yielding = yielding
            self.body = body
        }
    }
}
