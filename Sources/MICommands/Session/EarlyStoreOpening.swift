import Foundation
import Logging
import MIStore

/// The store opened on a thread of its own while the console logs in. At the prompt the store's
/// first use comes right after login (the unread notices), so opening it (files, WAL set-up, the
/// schema check: a few milliseconds) can overlap the directory's round trips instead of
/// following them. ``Session/store()`` waits for the result; an error surfaces there, at the
/// same place it would without the early start.
public final class EarlyStoreOpening: @unchecked Sendable {
    // Written once by the opening thread before `done` is signalled; read after waiting on it.
    private var result: Result<FormStore, Error>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts opening the store `config` names (``Session/openStore(_:clock:logger:)``).
    public init(_ config: AppConfig, clock: any StoreClock, logger: Logger) {
        let work = Work(config: config, clock: clock, logger: logger)
        HelperThread.start(yielding: true) { [self] in
            result = Result { try Session.openStore(work.config, clock: work.clock, logger: work.logger) }
            done.signal()
        }
    }

    /// The opened store, or the error opening it threw; waits for the opening thread.
    public func wait() throws -> FormStore {
        done.wait()
        done.signal()  // a second wait returns at once
        return try result!.get()
    }

    /// What the thread needs; handed over once, never shared while in use.
    private struct Work: @unchecked Sendable {
        let config: AppConfig
        let clock: any StoreClock
        let logger: Logger
    }
}
