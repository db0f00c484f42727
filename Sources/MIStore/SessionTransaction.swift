import Foundation

/// A transaction around many store calls: `--atomic` (all or nothing) and `--dry-run`
/// (everything, then rolled back).
///
/// While `body` runs, every ``FormStore/write(_:)`` joins the outer transaction through a
/// savepoint (so one failing command undoes only itself), and every read runs on the same
/// connection so it sees the uncommitted changes.
extension FormStore {
    public enum SessionEnd: Sendable { case commit, rollback }

    /// Runs `body` inside one transaction (SERIALIZABLE on PostgreSQL; on SQLite a read
    /// transaction until the first change, which takes the write lock: a session that only
    /// reads never blocks another console's writes), then commits or rolls back as `end` says.
    /// If `body` throws, everything is rolled back and the error rethrown.
    public func withSessionTransaction<T>(end: SessionEnd, _ body: () throws -> T) throws -> T {
        if let outer = SessionConnection.of(self) {
            // Nested (a preview inside --atomic): a savepoint of the outer transaction, for
            // changes rolled back afterwards, so the outer one writes from here on.
            try outer.db.startWriting()
            return try PendingAudit.keeping(if: end == .commit) { try outer.db.inSavepoint(rollback: end == .rollback) { try body() } }
        }
        return try relayingAudit { attempt in
            try engine.session(end: end) { db in
                attempt()
                return try PendingAudit.keeping(if: end == .commit) {
                    try SessionConnection.$current.withValue(SessionConnection(db, store: self)) { try body() }
                }
            }
        }
    }
}

extension FormStore {
    /// Between two commands of a session transaction: a session that has only read so far gives
    /// up its read snapshot (``StoreDatabase/endReadSnapshot()``), so a reader waiting for its
    /// next line (a technician's `--atomic` script fed from a pipe) holds back no checkpoint.
    /// A no-op outside a session transaction and once the session has written.
    public func endSessionReadSnapshot() throws {
        try SessionConnection.of(self)?.db.endReadSnapshot()
    }
}

/// The connection of the session transaction in progress on this thread, if any, and the store
/// it belongs to: only that store's calls join it (during `store copy --atomic` the target is
/// another store, with transactions of its own).
/// `@unchecked Sendable`: it is only ever used on the thread that runs the transaction.
final class SessionConnection: @unchecked Sendable {
    let db: any StoreDatabase
    let store: ObjectIdentifier
    init(_ db: any StoreDatabase, store: FormStore) {
        self.db = db
        self.store = ObjectIdentifier(store)
    }
    @TaskLocal static var current: SessionConnection?

    /// The session in progress for `store`, if any.
    static func of(_ store: FormStore) -> SessionConnection? {
        guard let current, current.store == ObjectIdentifier(store) else { return nil }
        return current
    }
}
