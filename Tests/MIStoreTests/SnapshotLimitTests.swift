import Foundation
import Testing
@testable import MIStore

/// One read of a SQLite store may keep its snapshot only `limits.snapshotSeconds`: a reader
/// holds back every checkpoint, so a slow listing or a long read-only session would let the
/// `-wal` file grow with every other console's changes (docs/security.md).
@Suite("Snapshot limit")
struct SnapshotLimitTests {
    static let numbers: StoreSQL = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) SELECT i FROM n"

    func store(_ dir: TempDir) throws -> FormStore {
        let store = try FormStore(path: dir.path + "/store.sqlite")
        store.setSnapshotLimit(seconds: 1)
        return store
    }

    static func tooOld(_ error: any Error) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.kind == .snapshotTooOld && error.message.contains("limits.snapshotSeconds")
            && error.message.contains("longer than the 1 s allowed")
    }

    /// Steps through `numbers` on `db`, waiting past the limit after the first row; the rows
    /// seen are counted in `seen`.
    static func stepSlowly(_ db: any StoreDatabase, seen: inout Int) throws {
        try db.forEachRow(literal: numbers) { _ in
            seen += 1
            if seen == 1 { Thread.sleep(forTimeInterval: 1.2) }
        }
    }

    @Test func aReadSteppedPastTheLimitEndsAtItsNextRow() throws {
        let dir = try TempDir()
        let store = try store(dir)
        var seen = 0
        #expect(performing: { try store.read { db in try Self.stepSlowly(db, seen: &seen) } }, throws: Self.tooOld)
        #expect(seen == 1, "the read went on after its snapshot was too old")
        // A read within the limit is untouched.
        var count = 0
        try store.read { db in try db.forEachRow(literal: Self.numbers) { _ in count += 1 } }
        #expect(count == 50)
    }

    @Test func aReadOnlySessionPastTheLimitEndsUntilItGivesUpItsSnapshot() throws {
        let dir = try TempDir()
        let store = try store(dir)
        try store.withSessionTransaction(end: .rollback) {
            #expect(try store.read { try $0.rows(literal: Self.numbers) }.count == 50)
            Thread.sleep(forTimeInterval: 1.2)
            #expect(performing: { try store.read { try $0.rows(literal: Self.numbers) } }, throws: Self.tooOld)
            // Between two commands the session gives up its snapshot: the next one reads again.
            try store.endSessionReadSnapshot()
            #expect(try store.read { try $0.rows(literal: Self.numbers) }.count == 50)
        }
    }

    /// A copy, an export or the integrity check must see the whole store at one moment: the
    /// limit does not end it, while an ordinary read of the same length is ended.
    @Test func aWholeStoreReadPastTheLimitGoesOn() throws {
        let dir = try TempDir()
        let store = try store(dir)
        var seen = 0
        try store.readWholeStore { db in try Self.stepSlowly(db, seen: &seen) }
        #expect(seen == 50)
        seen = 0
        #expect(performing: { try store.read { db in try Self.stepSlowly(db, seen: &seen) } }, throws: Self.tooOld)
        #expect(seen == 1)
    }
}
