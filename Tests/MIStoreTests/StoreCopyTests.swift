import Foundation
import Testing
@testable import MIStore

/// `store copy`: everything, ids kept, verified, into an empty store of either engine.
@Suite struct StoreCopyTests {
    /// A SQLite store with forms, media, a move (notices, audit), a comment and a policy value.
    func source(_ dir: TempDir) throws -> FormStore {
        let store = try makeStore(dir, file: "source.sqlite")
        _ = try store.importTree(at: Samples.writeTree(at: dir.sub("Documents")).root, actor: "seed")
        try store.move(ref("jdoe/Pump station 4"), to: "asmith", actor: "mkhan")
        try store.comment(ref("jdoe/Generator monthly"), text: "Looks right", author: "mkhan")
        _ = try store.setPolicy(.expiryDays, to: "9", defaults: ExpiryPolicy(expiryDays: 7, notifyDays: [1, 2], retentionDays: 30),
                                actor: "mkhan")
        return store
    }

    @Test(arguments: TestEngine.allCases) func everythingIsCopiedWithItsIdsAndVerified(engine: TestEngine) throws {
        let dir = try TempDir()
        let from = try source(dir)
        let to = try makeStore(dir, engine: engine, file: "target.sqlite")
        let report = try from.copy(to: to, append: false, actor: "lchen")
        #expect(report.tables.allSatisfy { $0.source == $0.copied })
        #expect(report.mediaChecked == 4 && report.mediaMismatches == 0 && report.mediaBytes > 0)
        // The same forms, ids, media bytes, comments, notices and audit rows (plus the copy's own).
        #expect(try to.summaries() == from.summaries())
        let generator = try from.form(ref("jdoe/Generator monthly"))
        #expect(try to.form(.id(generator.id)).foremanComments.map(\.text) == ["Looks right"])
        for file in generator.media {
            #expect(try to.mediaData(.id(generator.id), fileName: file.fileName)
                    == from.mediaData(.id(generator.id), fileName: file.fileName))
        }
        #expect(try to.notices(for: "jdoe").map(\.text) == from.notices(for: "jdoe").map(\.text))
        #expect(try to.auditEntries().map(\.command) == from.auditEntries().map(\.command) + ["store.copy"])
        #expect(try to.info().counts.first { $0.table == "policy" }?.rows == 1)
        // New rows get ids after the copied ones.
        let moved = try to.move(ref("asmith/Pump station 4"), to: "jdoe", actor: "mkhan")
        #expect(moved.noticeId! > (try from.notices(for: "jdoe").map(\.id).max() ?? 0))
        // A second copy into the non-empty target is refused; --append refuses clashing ids.
        #expect { try from.copy(to: to, append: false, actor: "lchen") } throws: {
            ($0 as! StoreError).kind == .invalidInput && ($0 as! StoreError).message.contains("is not empty")
        }
        #expect { try from.copy(to: to, append: true, actor: "lchen") } throws: {
            ($0 as! StoreError).message.contains("are in both stores")
        }
    }

    /// Inside --atomic (a session transaction of the source), the target is another store: its
    /// writes go to its own connection, not into the source's session.
    @Test func aCopyInsideASessionOfTheSourceWritesTheTarget() throws {
        let dir = try TempDir()
        let from = try source(dir)
        let to = try makeStore(dir, file: "target.sqlite")
        try from.withSessionTransaction(end: .commit) {
            _ = try from.copy(to: to, append: false, actor: "lchen")
        }
        #expect(try to.countForms() == from.countForms())
        #expect(try from.auditEntries().filter { $0.command == "store.copy" }.isEmpty)
    }
}
