import Foundation
import GRDB
import MITestSupport
import Testing
@testable import MIStore

/// The store's checkpoints run beside its writer, and the `-wal` file stays within
/// `journal_size_limit` all the same: the writer catches up with them when a checkpoint under
/// way cannot (a real SQLite file, many small transactions as a script of moves makes).
@Suite("WAL checkpointer")
struct WALCheckpointerTests {
    /// A WAL frame: its 24-byte header and a 4 KiB page.
    static let frameBytes = 24 + 4096

    @Test func manyChangesAreCheckpointedBesideTheWriterAndTheWALStaysWithinItsLimit() throws {
        let dir = try TempDir()
        let path = dir.path + "/store.sqlite"
        var largest = 0
        let passes: (beside: Int, byWriter: Int)
        do {
            let engine = try SQLiteEngine(path: path, busyTimeout: 5, opening: .createIfMissing)
            try engine.write { db in _ = try db.execute(literal: "CREATE TABLE filler (id INTEGER PRIMARY KEY, data BLOB)") }
            // 6,000 transactions of about two pages each: three times the catch-up point.
            for _ in 0..<6_000 {
                try engine.write { db in _ = try db.execute(literal: "INSERT INTO filler (data) VALUES (randomblob(3000))") }
                largest = max(largest, walSize(path) ?? 0)
            }
            passes = engine.checkpointer.passes()
            #expect(try engine.read { db in try db.value(Int.self, literal: "SELECT count(*) FROM filler") } == 6_000)
            #expect(try engine.integrityProblems() == ["ok"])
        }
        #expect(passes.beside > 0, "no checkpoint ran on the checkpointer's connection: \(passes)")
        // The most a commit appends past the catch-up point is its own few frames.
        let bound = SQLiteEngine.walSizeLimit + 8 * Self.frameBytes
        #expect(largest <= bound, "the -wal file reached \(largest) bytes (limit \(bound))")
        #expect(largest > Int(WALCheckpointer.startFrames) * Self.frameBytes, "the -wal file never reached a checkpoint's size")
        // Reopened after the last close: every change is in the store file.
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM filler") } == 6_000)
    }

    @Test func withoutItsConnectionTheWriterCheckpointsAsSQLiteWould() throws {
        let dir = try TempDir()
        let path = dir.path + "/store.sqlite"
        // A path it cannot open: no connection, so no thread either.
        let checkpointer = WALCheckpointer(path: dir.path + "/no-such-folder/store.sqlite")
        checkpointer.openNow()
        var largest = 0
        try withExtendedLifetime(checkpointer) {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "CREATE TABLE filler (id INTEGER PRIMARY KEY, data BLOB)")
                checkpointer.install(on: db.sqliteConnection!)
            }
            for _ in 0..<3_000 {
                try queue.write { try $0.execute(sql: "INSERT INTO filler (data) VALUES (randomblob(3000))") }
                largest = max(largest, walSize(path) ?? 0)
            }
        }
        let passes = checkpointer.passes()
        #expect(passes.beside == 0 && passes.byWriter > 0, "\(passes)")
        // The writer checkpoints at 1,000 pages, as SQLite does; with no reader that copies
        // everything, and the next commit starts the file over.
        let bound = (Int(WALCheckpointer.startFrames) + 8) * Self.frameBytes + 32
        #expect(largest <= bound, "the -wal file reached \(largest) bytes (limit \(bound))")
        checkpointer.stop()
    }
}
