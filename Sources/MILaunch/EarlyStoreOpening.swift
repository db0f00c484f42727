import Foundation
import Logging
import MICommands
import MIStore

/// The store opened on a thread of its own while the console logs in. At the prompt the store's
/// first use comes right after login (the unread notices), so opening it (files, WAL set-up, the
/// schema check: a few milliseconds) can overlap the directory's round trips instead of
/// following them. The session's store opening waits for the result (``wait()``); an error
/// surfaces there, at the same place it would without the early start.
final class EarlyStoreOpening: Sendable {
    private let result = AheadOfTime<Result<FormStore, Error>>()

    /// Starts opening the store `config` names, with the user's rights; `privileged`: for the
    /// installed binary, after it gave the group up (libpq still ignores the user's files).
    init(_ config: AppConfig, privileged: Bool, clock: any StoreClock, logger: Logger) {
        HelperThread.start(yielding: true) { [result] in
            result.set(Result { try config.openStore(privileged: privileged, clock: clock, logger: logger) })
        }
    }

    /// The opened store, or the error opening it threw; waits for the opening thread.
    func wait() throws -> FormStore {
        try result.wait().get()
    }
}
