import Foundation
import MITestSupport
import Testing
@testable import MIStore

/// How many times each write waits for the server (each also a hop through a pooler), counted
/// as ``PostgresEngineTests/aMoveTakesFourRoundTrips()`` counts a move's: after one run of the
/// same operation prepared its statements. BEGIN goes with the first statement; the statements
/// that need only what was read before them go in one batch; COMMIT is a round trip of its own.
@Suite(.tags(.postgres), .needsPostgres) struct PostgresRoundTripTests {
    /// `body`'s round trips on `store`'s connection.
    func roundTrips(_ store: FormStore, _ body: () throws -> Void) throws -> Int {
        let engine = try #require(store.engine as? PostgresEngine)
        let before = engine.roundTrips
        try body()
        return engine.roundTrips - before
    }

    /// The form's read (with BEGIN), then its update, the delivery and the audit row with the
    /// COMMIT.
    @Test func aSubmitTakesTwoRoundTrips() throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: .postgres, [], completed: [("jdoe/A", "2026-11-20T07:00:00Z"),
                                                                                  ("jdoe/B", "2026-11-20T07:00:00Z")])
        _ = try store.submit(ref("jdoe/A"), actor: "mkhan")
        var result: SubmitResult?
        #expect(try roundTrips(store) { result = try store.submit(ref("jdoe/B"), actor: "mkhan") } == 2)
        #expect(result?.alreadySubmitted == false && result?.version == 2)
        #expect(try store.forEachDeliveryCount(formId: result!.formId) == 1)
    }

    /// The form's read, the comment with the version, the audit row (it names the comment's
    /// id) with the COMMIT.
    @Test func aCommentTakesThreeRoundTrips() throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: .postgres, [], completed: [("jdoe/A", "2026-11-20T07:00:00Z"),
                                                                                  ("jdoe/B", "2026-11-20T07:00:00Z")])
        _ = try store.comment(ref("jdoe/A"), text: "Seal worn.", author: "mkhan")
        var comment: ForemanComment?
        #expect(try roundTrips(store) { comment = try store.comment(ref("jdoe/B"), text: "Gauge cracked.", author: "mkhan") } == 3)
        #expect(try store.form(ref("jdoe/B")).foremanComments == [try #require(comment)])
        let audit = try #require(try store.auditEntries(AuditFilter(form: ref("jdoe/B"))).last)
        #expect(audit.command == "comment" && audit.after?.contains(#""comment":\#(comment!.id)"#) == true)
    }

    /// The form's read, then the update, the notice, the audit row, the last delivery's time and
    /// the queued deliveries held, in one batch; COMMIT.
    @Test func aReopenTakesThreeRoundTrips() throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: .postgres, [], completed: [("jdoe/A", "2026-11-20T07:00:00Z"),
                                                                                  ("jdoe/B", "2026-11-20T07:00:00Z")])
        _ = try store.reopen(ref("jdoe/A"), reason: "Photo missing", actor: "mkhan")
        _ = try store.submit(ref("jdoe/B"), actor: "mkhan")
        var result: ReopenResult?
        #expect(try roundTrips(store) {
            result = try store.reopen(ref("jdoe/B"), reason: "Gauge unreadable", actor: "mkhan", allowSubmitted: true)
        } == 3)
        #expect(result?.withdrawnDeliveries == 1 && result?.sentAt == nil && result?.version == 3)
        #expect(try store.notices(for: "jdoe").last?.id == result?.noticeId)
    }

    /// The trashed form's read, the free name, the update with its notice and audit row, COMMIT.
    @Test func aRestoreTakesFourRoundTrips() throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: .postgres, [("jdoe/A", "2026-10-01T07:00:00Z"),
                                                                   ("jdoe/B", "2026-10-01T07:00:00Z")])
        #expect(try store.expire(store.expiryCutoff(days: 7), actor: "mkhan") == 2)
        _ = try store.restore(ref("jdoe/A"), actor: "lchen")
        var result: RestoreResult?
        #expect(try roundTrips(store) { result = try store.restore(ref("jdoe/B"), actor: "lchen") } == 4)
        #expect(result?.newName == "B" && result?.version == 3)
        #expect(try store.notices(for: "jdoe").last?.id == result?.noticeId)
    }

    /// One transaction for three forms: their read (with BEGIN), every form's update, notice and
    /// audit row in one batch, COMMIT.
    @Test func anExpiryRunTakesThreeRoundTripsPerTransaction() throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: .postgres, [("jdoe/A", "2026-10-01T07:00:00Z")])
        #expect(try store.expire(store.expiryCutoff(days: 7), actor: "mkhan") == 1)
        let tree = try TreeBuilder(dir.sub("more"))
        for name in ["C", "D", "E"] { try tree.form("jdoe/" + name, created: "2026-10-02T07:00:00Z") }
        #expect(try store.importTree(at: tree.root, actor: "seed").inserted.count == 3)
        var expired: [ExpiredForm] = []
        var count = 0
        #expect(try roundTrips(store) {
            count = try store.expire(store.expiryCutoff(days: 7), actor: "mkhan") { expired.append($0) }
        } == 3)
        #expect(count == 3)
        #expect(expired.map(\.form.name) == ["C", "D", "E"])
        #expect(try store.notices(for: "jdoe").suffix(3).map(\.id) == expired.map(\.noticeId))
    }

    /// A purge of three trashed forms in one transaction: their read (with BEGIN), every form's
    /// delete, notice and audit row in one batch, COMMIT (it was three round trips per form).
    @Test func aPurgeTakesThreeRoundTripsPerTransaction() throws {
        let dir = try TempDir()
        let clock = TestClock(expiryNow)
        let store = try ExpiryTests.store(dir, engine: .postgres, [("jdoe/C", "2026-10-01T07:00:00Z"),
                                                                   ("jdoe/D", "2026-10-01T07:00:00Z"),
                                                                   ("jdoe/E", "2026-10-01T07:00:00Z")], clock: clock)
        #expect(try store.expire(store.expiryCutoff(days: 7), actor: "mkhan") == 3)
        clock.advance(days: 1)
        var purged: [TrashedForm] = []
        var count = 0
        #expect(try roundTrips(store) {
            count = try store.purge(store.purgeCutoff(days: 0), actor: "mkhan") { purged.append($0) }
        } == 3)
        #expect(count == 3)
        #expect(purged.map(\.form.name) == ["C", "D", "E"])
        #expect(try store.notices(for: "jdoe").suffix(3).map(\.text)
                == ["C", "D", "E"].map { "Form '\($0)' was deleted for good from the trash." })
        #expect(try store.read { try $0.value(Int.self, literal: "SELECT COUNT(*) FROM forms") } == 0)
    }

    /// A new form with two photos: its read (with BEGIN), the insert (the media need its id), the
    /// media and the audit row with the COMMIT. The same tree again, unchanged: the read, the
    /// comments with the media list, COMMIT.
    @Test func anImportTakesThreeRoundTripsPerForm() throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: .postgres)
        let photos = ["Qid0(1).jpg": "first photo", "Qid1(1).jpg": "second photo"]
        let first = try TreeBuilder(dir.sub("first"))
        try first.form("jdoe/Pump", media: photos)
        #expect(try store.importTree(at: first.root, actor: "seed").inserted.count == 1)
        _ = try store.importTree(at: first.root, actor: "seed")

        let second = try TreeBuilder(dir.sub("second"))
        try second.form("jdoe/Valve", media: photos)
        var report: ImportReport?
        #expect(try roundTrips(store) { report = try store.importTree(at: second.root, actor: "seed") } == 3)
        #expect(report?.inserted.count == 1 && report?.errors == [])
        #expect(try store.form(ref("jdoe/Valve")).media.map(\.fileName) == ["Qid0(1).jpg", "Qid1(1).jpg"])
        #expect(try roundTrips(store) { report = try store.importTree(at: second.root, actor: "seed") } == 3)
        #expect(report?.unchanged == 1)
    }

    /// An `Error/<uid>` file of three lines: the counts of notices with each text, read in one
    /// batch (with BEGIN), then the notices and the audit row with the COMMIT.
    @Test func anErrorFileTakesTwoRoundTrips() throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: .postgres)
        let first = try TreeBuilder(dir.sub("first"))
        try first.write("Error/asmith", "Upload failed\n")
        #expect(try store.importTree(at: first.root, actor: "seed").noticesAdded == 1)
        let second = try TreeBuilder(dir.sub("second"))
        try second.write("Error/jdoe", "Upload failed\nCamera full\nUpload failed\n")
        var report: ImportReport?
        #expect(try roundTrips(store) { report = try store.importTree(at: second.root, actor: "seed") } == 2)
        #expect(report?.noticesAdded == 3)
        #expect(try store.notices(for: "jdoe").map(\.text) == ["Upload failed", "Upload failed", "Camera full"])
    }

    /// A form with its comments and media list (`show`, and `submit ID` before its question): the
    /// form's read (with BEGIN), both lists in one batch, COMMIT.
    @Test func readingAFormTakesThreeRoundTrips() throws {
        let dir = try TempDir()
        let store = try ExpiryTests.store(dir, engine: .postgres, [("jdoe/A", "2026-11-20T07:00:00Z"),
                                                                   ("jdoe/B", "2026-11-20T07:00:00Z")])
        _ = try store.form(ref("jdoe/A"))
        var form: Form?
        #expect(try roundTrips(store) { form = try store.form(ref("jdoe/B")) } == 3)
        #expect(form?.media.map(\.fileName) == ["Qid0(1).jpg"] && form?.foremanComments == [])
    }

    /// A batch longer than its bound goes in pieces, one round trip each, its rows in order.
    @Test func aLongBatchGoesInBoundedPieces() throws {
        let dir = try TempDir()
        let store = try makeStore(dir, engine: .postgres)
        var values: [Int64] = []
        // BEGIN with the first piece, three pieces of at most two statements, COMMIT.
        #expect(try roundTrips(store) {
            try store.write { db in
                values = try db.batch((1...5).map { StoreStatement(literal: "SELECT \(Int64($0)) AS n") }, atMost: 2)
                    .map { $0[0]["n"] }
            }
        } == 4)
        #expect(values == [1, 2, 3, 4, 5])
    }
}

/// Statements left for the COMMIT (``StoreDatabase/sendLater(_:)``) belong to their change: one
/// that fails undoes it, on its own and inside a session transaction, on both engines.
@Suite struct SendLaterTests {
    /// A notice without a uid: refused by the schema (NOT NULL).
    static let refused = StoreStatement(literal: "INSERT INTO notices (uid, text, created, source) VALUES (NULL, 'x', 0, 'test')")

    func bumpVersion(_ db: any StoreDatabase, _ id: Int64) throws {
        try db.execute(literal: "UPDATE forms SET version = version + 1 WHERE id = \(id)")
    }

    @Test(arguments: TestEngine.allCases) func aStatementLeftForTheCommitThatFailsUndoesItsChange(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        let id = try store.form(ref("jdoe/Pump")).id
        #expect(throws: StoreError.self) {
            try store.write { db in
                try bumpVersion(db, id)
                try db.sendLater([Self.refused])
            }
        }
        #expect(try store.form(.id(id)).version == 1)
        // The connection is fine afterwards: the next change goes through, its later statements too.
        try store.write { db in
            try bumpVersion(db, id)
            try db.sendLater([StoreStatement(literal: "UPDATE forms SET version = version + 1 WHERE id = \(id)")])
        }
        #expect(try store.form(.id(id)).version == 3)
    }

    @Test(arguments: TestEngine.allCases) func insideASessionOnlyTheFailingCommandIsUndone(engine: TestEngine) throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: engine, ["jdoe/Pump"])
        let id = try store.form(ref("jdoe/Pump")).id
        try store.withSessionTransaction(end: .commit) {
            #expect(throws: StoreError.self) {
                try store.write { db in
                    try bumpVersion(db, id)
                    try db.sendLater([Self.refused])
                }
            }
            try store.write { db in
                try bumpVersion(db, id)
                try db.sendLater([StoreStatement(literal: "UPDATE forms SET version = version + 1 WHERE id = \(id)")])
            }
        }
        #expect(try store.form(.id(id)).version == 3)
    }
}

private extension FormStore {
    func forEachDeliveryCount(formId: Int64) throws -> Int {
        var count = 0
        try forEachDelivery(DeliveryFilter(formId: formId)) { _ in count += 1 }
        return count
    }
}
