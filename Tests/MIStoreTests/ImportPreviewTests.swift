import Foundation
import GRDB
import Testing
@testable import MIStore

@Suite("Import preview")
struct ImportPreviewTests {
    @Test(arguments: TestEngine.allCases) func previewSaysWhatTheImportWillDoAndChangesNothing(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        let preview = try store.previewImport(at: dir.sub("Documents"))
        #expect(preview.inserted.count == 5 && preview.inserted.allSatisfy { $0.id == 0 })
        #expect(preview.noticesAdded == 1)
        #expect(try store.countForms(FormFilter()) == 0)
        #expect(try store.auditEntries().isEmpty)

        let report = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        #expect(Set(report.inserted.map(\.name)) == Set(preview.inserted.map(\.name)))
        let again = try store.previewImport(at: dir.sub("Documents"))
        #expect(again.changedNothing && again.unchanged == 5 && again.noticesAlreadyPresent == 1)
    }

    /// The preview only reads: it works while another process holds the write lock (before, it
    /// ran the whole import in a rolled-back write transaction, holding the lock for the scan).
    @Test func previewRunsWhileAnotherProcessHoldsTheWriteLock() throws {
        let dir = try TempDir()
        let store = try makeStore(dir, busyTimeout: 0)
        _ = try Samples.writeTree(at: dir.sub("Documents"))
        let other = try DatabaseQueue(path: dir.path + "/store.sqlite")
        try other.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            defer { try? db.execute(sql: "ROLLBACK") }
            let preview = try store.previewImport(at: dir.sub("Documents"))
            #expect(preview.inserted.count == 5)
            #expect(throws: StoreError.self) { _ = try store.importTree(at: dir.sub("Documents"), actor: "importer") }
        }
    }

    @Test(arguments: TestEngine.allCases) func previewSeesUpdatesCollisionsAndNewComments(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: engine)
        let tree = try Samples.writeTree(at: dir.sub("Documents"))
        _ = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        // A later save of the same form (an update) and another form under a taken name (a collision).
        try tree.form("jdoe/Valve check – north", created: "2026-11-19T13:40:00+01:00", modified: "2026-11-20T08:00:00+01:00")
        try tree.form("asmith/Pump station 4", created: "2026-11-01T07:00:00Z")
        let preview = try store.previewImport(at: dir.sub("Documents"))
        let report = try store.importTree(at: dir.sub("Documents"), actor: "importer")
        #expect(preview.updated.map(\.name) == report.updated.map(\.name))
        #expect(report.updated.count == 1 && report.collisions.count == 1)
        #expect(preview.collisions.map(\.path) == report.collisions.map(\.path))
        #expect(preview.unchanged == report.unchanged)
    }
}
