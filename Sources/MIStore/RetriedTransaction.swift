import Foundation

extension FormStore {
    /// Runs `body`, many store calls, in one transaction that commits (all or nothing, as
    /// ``withSessionTransaction(end:_:)`` with `.commit`), and that the PostgreSQL engine runs
    /// again from the start after a lost race (a serialization failure, at COMMIT too) or a lost
    /// connection, as it does a single change. `body` must be a pure function of what it reads:
    /// nothing of an attempt (output, a count, a resume position) may leave it before it
    /// returns; what it returns is kept only once the transaction committed. `undo` runs so.
    ///
    /// Inside a session transaction already (`--atomic`), it joins that one: the outer
    /// transaction decides.
    public func withRetriedTransaction<T>(_ body: () throws -> T) throws -> T {
        if SessionConnection.of(self) != nil { return try withSessionTransaction(end: .commit, body) }
        // Its audit rows reach the relay once, after the attempt that committed.
        return try relayingAudit { attempt in
            try engine.retriedSession { db in
                attempt()
                return try PendingAudit.keeping {
                    try SessionConnection.$current.withValue(SessionConnection(db, store: self)) { try body() }
                }
            }
        }
    }
}
