import Foundation
import GRDB

/// A transaction around many store calls: `--atomic` (all or nothing) and `--dry-run`
/// (everything, then rolled back).
///
/// While `body` runs, every ``FormStore/write(_:)`` joins the outer transaction through a
/// savepoint (so one failing command undoes only itself), and every read runs on the same
/// connection so it sees the uncommitted changes.
extension FormStore {
    public enum SessionEnd: Sendable { case commit, rollback }

    /// Runs `body` inside one IMMEDIATE transaction, then commits or rolls back as `end` says.
    /// If `body` throws, everything is rolled back and the error rethrown.
    public func withSessionTransaction<T>(end: SessionEnd, _ body: () throws -> T) throws -> T {
        if let outer = SessionConnection.current {
            // Nested (a preview inside --atomic): a savepoint of the outer transaction.
            do {
                var result: T?
                try outer.db.inSavepoint {
                    result = try body()
                    return end == .commit ? .commit : .rollback
                }
                return result!
            } catch let error as DatabaseError {
                throw StoreError.mapping(error, busyTimeout: busyTimeout)
            }
        }
        do {
            return try dbPool.writeWithoutTransaction { db in
                try db.beginTransaction(.immediate)
                let result: T
                do {
                    result = try SessionConnection.$current.withValue(SessionConnection(db)) { try body() }
                } catch {
                    try? db.rollback()
                    throw error
                }
                switch end {
                case .commit: try db.commit()
                case .rollback: try db.rollback()
                }
                return result
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
    }
}

/// The connection of the session transaction in progress on this thread, if any.
/// `@unchecked Sendable`: it is only ever used on the thread that runs the transaction.
final class SessionConnection: @unchecked Sendable {
    let db: Database
    init(_ db: Database) { self.db = db }
    @TaskLocal static var current: SessionConnection?
}
