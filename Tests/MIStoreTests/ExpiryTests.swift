import Foundation
import GRDB
import Testing
@testable import MIStore

/// 2026-11-21T09:00:00Z, the "now" of these tests.
let expiryNow = Date(timeIntervalSince1970: 1_795_251_600)

@Suite("Expiry, trash, restore and purge")
struct ExpiryTests {
    /// A store at `expiryNow` holding incomplete forms `owner/name` created at the given times.
    static func store(_ dir: TempDir, engine: TestEngine = .sqlite, _ forms: [(String, String)], completed: [(String, String)] = [],
                      clock: TestClock = TestClock(expiryNow)) throws -> FormStore {
        let store = try makeStore(dir, engine: engine, clock: clock)
        let tree = try TreeBuilder(dir.sub("seed"))
        for (form, created) in forms { try tree.form(form, created: created, media: ["Qid0(1).jpg": "photo of \(form)"]) }
        for (form, created) in completed { try tree.form("Completed MIs/" + form, created: created, answered: true) }
        let report = try store.importTree(at: tree.root, actor: "seed")
        precondition(report.errors.isEmpty && report.inserted.count == forms.count + completed.count)
        return store
    }

    static func counts(_ store: FormStore) throws -> [String: Int] {
        try store.read { db in
            var result: [String: Int] = [:]
            for table in ["forms", "media", "notices", "audit"] {
                result[table] = try db.value(Int.self, literal: "SELECT COUNT(*) FROM \(identifier: table)")
            }
            result["trashed"] = try db.value(Int.self, literal: "SELECT COUNT(*) FROM forms WHERE trashed_at IS NOT NULL")
            return result
        }
    }

    func expirable(_ store: FormStore, days: Int) throws -> [String] {
        var names: [String] = []
        try store.forEachExpirable(store.expiryCutoff(days: days)) { names.append("\($0.owner)/\($0.name)") }
        return names
    }

    @Test(arguments: TestEngine.allCases) func exactlyNDaysIsNotOlderThanNDays(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [
            ("jdoe/Exactly seven days", "2026-11-14T09:00:00Z"),
            ("jdoe/Seven days and a second", "2026-11-14T08:59:59Z"),
            ("jdoe/Exactly seven days in Paris", "2026-11-14T10:00:00+01:00"),
            ("jdoe/Seven days and a second in Paris", "2026-11-14T09:59:59+01:00"),
            ("jdoe/Seven days and a second in Denver", "2026-11-14T01:59:59-07:00"),
            ("jdoe/Yesterday", "2026-11-20T09:00:00Z"),
        ])
        // All three are the same instant, 08:59:59Z, in three zones.
        #expect(try Set(expirable(store, days: 7)) == [
            "jdoe/Seven days and a second in Denver", "jdoe/Seven days and a second",
            "jdoe/Seven days and a second in Paris",
        ])
        #expect(try store.countExpirable(store.expiryCutoff(days: 7)) == 3)
        let expired = try store.expire(store.expiryCutoff(days: 7), actor: "mkhan")
        #expect(expired == 3)
        // Created keeps its zone in listings; the boundary forms stay.
        #expect(try store.names(of: "jdoe").sorted() == ["Exactly seven days", "Exactly seven days in Paris", "Yesterday"])
        #expect(try store.summaries().first { $0.name == "Exactly seven days in Paris" }?.created.text == "2026-11-14T10:00:00+01:00")
        #expect(try expirable(store, days: 7) == [])
    }

    @Test(arguments: TestEngine.allCases) func expiryMovesToTheTrashWithMediaNoticeAndAudit(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [("jdoe/Old", "2026-11-01T07:00:00Z"), ("asmith/Old", "2026-11-02T07:00:00Z"),
                                         ("jdoe/New", "2026-11-20T07:00:00Z")],
                                   completed: [("jdoe/Old and done", "2026-11-01T07:00:00Z")])
        var progress: [Int] = []
        var seen: [ExpiredForm] = []
        let count = try store.expire(store.expiryCutoff(days: 7), actor: "mkhan", note: "nightly", batchSize: 1) {
            seen.append($0)
        } progress: { progress.append($0) }
        #expect(count == 2)
        #expect(progress == [1, 2, 2], "one call per batch, the last one empty")
        #expect(seen.map(\.form.name) == ["Old", "Old"] && seen.map(\.form.owner) == ["jdoe", "asmith"])
        // Completed forms never expire; the young one stays.
        #expect(try store.names(of: "jdoe").sorted() == ["New", "Old and done"])
        #expect(try store.notices(for: "jdoe").map(\.text) == ["Form 'Old' expired after 7 days and was moved to the trash."])
        #expect(try store.notices(for: "jdoe").first?.source == "expire")
        let audit = try store.auditEntries(AuditFilter(actor: "mkhan"))
        #expect(audit.map(\.command) == ["expire", "expire"] && audit.allSatisfy { $0.note == "nightly" })
        #expect(audit[0].before == #"{"owner":"jdoe","name":"Old","state":"incomplete","version":1}"#)
        #expect(audit[0].after == #"{"owner":"jdoe","name":"Old","state":"incomplete","version":2,"trashedAt":"2026-11-21T09:00:00Z"}"#)
        // In the trash, with media still attached.
        var trash: [TrashedForm] = []
        try store.forEachTrashedForm { trash.append($0) }
        #expect(trash.map(\.form.owner).sorted() == ["asmith", "jdoe"] && trash.allSatisfy { $0.form.mediaCount == 1 })
        #expect(trash.allSatisfy { $0.trashedAt == expiryNow })
        var jdoesTrash: [TrashedForm] = []
        try store.forEachTrashedForm(owner: "jdoe") { jdoesTrash.append($0) }
        #expect(jdoesTrash.map(\.form.name) == ["Old"])
        #expect(try Self.counts(store)["media"] == 3)
        // A trashed form is not found as a live one; its name is free again.
        #expect(throws: StoreError.self) { try store.form(ref("jdoe/Old")) }
    }

    @Test(arguments: TestEngine.allCases) func dryRunListsExactlyWhatTheRunTakesAndChangesNothing(engine: TestEngine) throws {
        let dir = try TempDir()
        var forms: [(String, String)] = []
        for index in 0..<25 {
            forms.append(("u\(index % 4)/Form \(index)", "2026-11-\(String(format: "%02d", 1 + index % 20))T0\(index % 10):00:00+0\(index % 3):00"))
        }
        let store = try Self.store(dir, engine: engine, forms)
        let before = try Self.counts(store)
        let auditBefore = try store.auditEntries()
        let cutoff = try store.expiryCutoff(days: 7)
        var preview: [Int64] = []
        try store.forEachExpirable(cutoff) { preview.append($0.id) }
        #expect(try Self.counts(store) == before)
        #expect(try store.auditEntries() == auditBefore)
        #expect(!preview.isEmpty && preview.count < forms.count)

        var taken: [Int64] = []
        try store.expire(cutoff, actor: "mkhan", batchSize: 4) { taken.append($0.form.id) }
        #expect(taken == preview, "the same forms in the same order")
        #expect(try Self.counts(store)["trashed"] == preview.count)
    }

    @Test(arguments: TestEngine.allCases) func restoreRenamesOnACollisionLikeMove(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [("jdoe/Pump", "2026-11-01T07:00:00Z")])
        try store.expire(store.expiryCutoff(days: 7), actor: "mkhan")
        // The technician made a new form of the same name meanwhile, and a 'Pump (2)'.
        let tree = try TreeBuilder(dir.sub("later"))
        try tree.form("jdoe/Pump", created: "2026-11-20T07:00:00Z")
        try tree.form("jdoe/Pump (2)", created: "2026-11-20T08:00:00Z")
        #expect(try store.importTree(at: tree.root, actor: "seed").inserted.count == 2)

        let result = try store.restore(ref("jdoe/Pump"), actor: "lchen", note: "expired by mistake")
        #expect(result.renamed && result.oldName == "Pump" && result.newName == "Pump (3)" && result.version == 3)
        #expect(try store.names(of: "jdoe").sorted() == ["Pump", "Pump (2)", "Pump (3)"])
        #expect(try store.form(.id(result.formId)).media.count == 1, "media came back with it")
        #expect(try store.notices(for: "jdoe").last?.text == "Form 'Pump' was restored from the trash by lchen as 'Pump (3)'.")
        let audit = try #require(try store.auditEntries(AuditFilter(actor: "lchen")).first)
        #expect(audit.command == "restore" && audit.note == "expired by mistake")
        #expect(audit.after == #"{"owner":"jdoe","name":"Pump (3)","state":"incomplete","version":3}"#)
        // Restored: not expired again by the next run (it counts from the restore).
        #expect(try store.countExpirable(store.expiryCutoff(days: 7)) == 0)
        // Not in the trash any more.
        #expect { try store.restore(.id(result.formId), actor: "lchen") } throws: { error in
            (error as? StoreError)?.kind == .invalidState
        }
        #expect { try store.restore(ref("jdoe/Nothing"), actor: "lchen") } throws: { error in
            (error as? StoreError)?.kind == .notFound
        }
    }

    @Test(arguments: TestEngine.allCases) func restoreWithoutCollisionKeepsTheName(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [("jdoe/Pump", "2026-11-01T07:00:00Z")])
        try store.expire(store.expiryCutoff(days: 7), actor: "mkhan")
        var id: Int64 = 0
        try store.forEachTrashedForm { id = $0.form.id }
        let result = try store.restore(.id(id), actor: "mkhan")
        #expect(!result.renamed && result.newName == "Pump")
        #expect(try store.notices(for: "jdoe").last?.text == "Form 'Pump' was restored from the trash by mkhan.")
    }

    @Test(arguments: TestEngine.allCases) func purgeDestroysFormsTrashedLongEnoughAgoWithTheirMedia(engine: TestEngine) throws {
        let dir = try TempDir()
        let clock = TestClock(expiryNow)
        let store = try Self.store(dir, engine: engine, [("jdoe/A", "2026-10-01T07:00:00Z"), ("jdoe/B", "2026-11-01T07:00:00Z")],
                                   clock: clock)
        // A is trashed now; B ten days later.
        let cutoffA = try store.expiryCutoff(days: 40)
        #expect(try store.expire(cutoffA, actor: "mkhan") == 1)
        clock.advance(days: 10)
        #expect(try store.expire(store.expiryCutoff(days: 7), actor: "mkhan") == 1)
        clock.advance(days: 30)  // A: 40 days in the trash, B: exactly 30.

        let cutoff = try store.purgeCutoff(days: 30)
        var preview: [String] = []
        try store.forEachPurgeable(cutoff) { preview.append($0.form.name) }
        #expect(preview == ["A"], "exactly 30 days in the trash is not more than 30")
        let before = try Self.counts(store)
        var purged: [String] = []
        #expect(try store.purge(cutoff, actor: "mkhan", note: "retention") { purged.append($0.form.name) } == 1)
        #expect(purged == preview)
        let after = try Self.counts(store)
        #expect(after["forms"] == before["forms"]! - 1 && after["media"] == before["media"]! - 1)
        #expect(try store.notices(for: "jdoe").last?.text == "Form 'A' was deleted for good from the trash.")
        let audit = try #require(try store.auditEntries().last)
        #expect(audit.command == "purge" && audit.after == nil && audit.note == "retention")
        #expect(audit.before?.contains(#""trashedAt":"2026-11-21T09:00:00Z""#) == true)
        // The audit trail of the form outlives it.
        #expect(try store.auditEntries(AuditFilter(form: .id(audit.formId!))).map(\.command) == ["import.insert", "expire", "purge"])

        #expect(try store.purge(store.purgeCutoff(days: 0), actor: "mkhan") == 1)
        #expect(try Self.counts(store)["forms"] == 0 && Self.counts(store)["media"] == 0)
    }

    @Test(arguments: TestEngine.allCases) func reopenSendsACompletedFormBack(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [], completed: [("jdoe/Generator", "2026-10-01T07:00:00Z")])
        let result = try store.reopen(ref("jdoe/Generator"), reason: "Photo of the gauge missing", actor: "mkhan")
        #expect(result.version == 2)
        #expect(try store.form(ref("jdoe/Generator")).state == .incomplete)
        #expect(try store.notices(for: "jdoe").map(\.text)
                == ["Form 'Generator' was sent back to you by foreman mkhan: Photo of the gauge missing"])
        let audit = try #require(try store.auditEntries(AuditFilter(actor: "mkhan")).first)
        #expect(audit.command == "reopen" && audit.note == "Photo of the gauge missing")
        // Created long ago, but reopened now: not expired by the next run.
        #expect(try store.countExpirable(store.expiryCutoff(days: 7)) == 0)
        #expect { try store.reopen(ref("jdoe/Generator"), reason: "again", actor: "mkhan") } throws: { error in
            (error as? StoreError)?.kind == .invalidState
        }
        #expect { try store.reopen(ref("jdoe/Generator"), reason: "  ", actor: "mkhan") } throws: { error in
            (error as? StoreError)?.kind == .invalidInput
        }
    }

    @Test(arguments: TestEngine.allCases) func expiryInsideASessionTransactionRollsBack(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try Self.store(dir, engine: engine, [("jdoe/Old", "2026-11-01T07:00:00Z")])
        let before = try Self.counts(store)
        let count = try store.withSessionTransaction(end: .rollback) {
            try store.expire(store.expiryCutoff(days: 7), actor: "mkhan")
        }
        #expect(count == 1)
        #expect(try Self.counts(store) == before)
    }
}
