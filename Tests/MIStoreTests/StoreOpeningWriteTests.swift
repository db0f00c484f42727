import Foundation
import Testing
@testable import MIStore

/// Opening a store that was closed cleanly writes nothing: the installed binary opens it while
/// it still holds its group, and a write there reads SQLite's random seed and syncs the store's
/// folder with that privilege (docs/security.md).
@Suite("Store opening writes")
struct StoreOpeningWriteTests {
    @Test func aCleanlyClosedStoreKeepsItsWALAndTheNextOpenWritesNothing() throws {
        let dir = try TempDir()
        let path = dir.path + "/store.sqlite"
        do {
            let store = try FormStore(path: path)
            _ = try Samples.writeTree(at: dir.sub("Documents"))
            _ = try store.importTree(at: dir.sub("Documents"), actor: "setup")
        }
        let wal = path + "-wal"
        let closed = try Data(contentsOf: URL(fileURLWithPath: wal))
        #expect(!closed.isEmpty, "the last close truncated the -wal file, so the next open writes a frame into it")
        do {
            let store = try FormStore(path: path)
            #expect(try !store.summaries().isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: wal)) == closed, "opening and reading the store wrote to its -wal file")
    }
}
