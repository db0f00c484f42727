import CProcess
import Foundation

/// Work started ahead of time on threads of its own while the console logs in: the directory
/// connection, the store, readline's set-up.
public enum HelperThread {
    /// Starts `body` on a new thread.
    ///
    /// A plain POSIX thread: Foundation's `Thread` costs measurably more for the first one of
    /// the process (docs/benchmarks.md), and the first one starts at the very beginning of the run, before the
    /// command line is parsed.
    ///
    /// `yielding`: the thread runs with a nice value of 10 (Linux sets it for the calling thread
    /// only), so it gets a core only when the login does not need it. Opening the store and
    /// setting readline up only get ahead of time; on a machine with two cores, the command-line
    /// parse, the TLS handshake and slapd's side of it already keep both busy at start-up. A
    /// thread the console waits for takes a core as soon as the waiting thread frees one.
    ///
    /// A thread that does not yield starts on another core than the calling thread's, then may
    /// run on any core again: Linux puts a new thread on its creator's core even when another
    /// core is idle, and there it waited until its creator was preempted, at every start-up
    /// (docs/benchmarks.md). A yielding thread starts where Linux puts it:
    /// it is started when the calling thread is about to wait.
    public static func start(yielding: Bool, _ body: @escaping @Sendable () -> Void) {
        let work = Work(yielding: yielding, body: body)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if !yielding {
            work.placedElsewhere = mi_attr_start_on_other_cpu(&attributes, &work.cpus) == 1
        }
        let context = Unmanaged.passRetained(work).toOpaque()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
            if work.yielding { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
            if work.placedElsewhere { _ = mi_set_thread_cpus(&work.cpus) }
            work.body()
            return nil
        }
        var thread = pthread_t()
        var started = pthread_create(&thread, &attributes, entry, context)
        if started != 0 && work.placedElsewhere {
            // The other cores may have gone offline meanwhile: start it anywhere.
            work.placedElsewhere = false
            started = pthread_create(&thread, nil, entry, context)
        }
        if started == 0 {
            pthread_detach(thread)
        } else {
            // No thread (the process is out of them): do the work here, as it would be done
            // without getting ahead.
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
        }
    }

    /// Handed to the new thread, which alone uses it once started.
    private final class Work: @unchecked Sendable {
        let yielding: Bool
        let body: @Sendable () -> Void
        /// Whether the thread was started on another core, and the cores it may then run on
        /// (those its creator may run on).
        var placedElsewhere = false
        var cpus = mi_cpu_mask()

        init(yielding: Bool, body: @escaping @Sendable () -> Void) {
            self.yielding = yielding
            self.body = body
        }
    }
}
