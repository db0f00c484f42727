import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// Every writing operation with a serialization failure (40001) forced at the COMMIT of each of
/// its transactions' first attempts: a deferred constraint trigger on `write_ids` (one row per
/// write transaction) raises it whenever a sequence, which no rollback takes back, hands out an
/// odd number. The engine runs each transaction again; what the operations return and what the
/// store holds afterwards must equal a fault-free run of the same steps on a store seeded alike.
/// A retried transaction that kept something of its failed attempt (a resume position, a
/// counter) shows here as a different result.
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresCommitFaultTests {
    let fixture = PostgresFixture.shared

    /// A store at `expiryNow` with old incomplete forms (expirable), young ones and completed ones.
    func seeded(_ dir: TempDir, clock: TestClock) throws -> FormStore {
        try ExpiryTests.store(dir, engine: .postgres, [
            ("jdoe/Old 1", "2026-11-01T07:00:00Z"), ("jdoe/Old 2", "2026-11-01T08:00:00Z"),
            ("asmith/Old 3", "2026-11-02T07:00:00Z"), ("asmith/Old 4", "2026-11-02T08:00:00Z"),
            ("jdoe/Old 5", "2026-11-03T07:00:00Z"), ("jdoe/Pump", "2026-11-20T07:00:00Z"),
            ("jdoe/Valve", "2026-11-20T08:00:00Z"),
        ], completed: [("jdoe/Done 1", "2026-11-19T07:00:00Z"), ("jdoe/Done 2", "2026-11-19T08:00:00Z")], clock: clock)
    }

    /// Arms the fault on `store`'s schema: from now on every write transaction's first COMMIT
    /// fails with 40001, its second goes through.
    func armCommitFault(_ store: FormStore) throws {
        let schema = try #require(try store.read { try $0.value(String.self, literal: "SELECT current_schema()") })
        let other = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        for statement in PostgresFixture.commitFaultStatements(schema: schema) { try other.execute(statement) }
    }

    /// The steps: each writing operation of the store once or more, the results as text.
    func steps(_ store: FormStore, clock: TestClock, dir: TempDir) throws -> [String] {
        var out: [String] = []
        let moved = try store.move(ref("jdoe/Pump"), to: "asmith", actor: "mkhan", note: "leave")
        out.append("move \(moved.fromOwner)->\(moved.toOwner) \(moved.newName) v\(moved.version)")
        // Several changes in one transaction (`undo`), run again whole.
        let undone = try store.withRetriedTransaction {
            try [store.move(ref("asmith/Pump"), to: "jdoe", actor: "mkhan", note: "undo", undoing: moved),
                 store.move(ref("jdoe/Valve"), to: "asmith", actor: "mkhan")]
        }
        out.append("undo \(undone.map { "\($0.fromOwner)->\($0.toOwner) \($0.newName) v\($0.version)" })")
        let comment = try store.comment(ref("jdoe/Done 1"), text: "looks fine", author: "mkhan")
        out.append("comment \(comment.text)")
        let submitted = try store.submit(ref("jdoe/Done 1"), actor: "mkhan")
        out.append("submit \(submitted.owner)/\(submitted.name) v\(submitted.version)")
        let reopened = try store.reopen(ref("jdoe/Done 2"), reason: "photo missing", actor: "mkhan")
        out.append("reopen \(reopened.owner)/\(reopened.name) v\(reopened.version)")
        // Several batches: a retried batch must take the same forms again.
        var expired: [String] = []
        var progress: [Int] = []
        let count = try store.expire(store.expiryCutoff(days: 7), actor: "mkhan", batchSize: 2) {
            expired.append("\($0.form.owner)/\($0.form.name)")
        } progress: { progress.append($0) }
        out.append("expire \(count) \(expired) \(progress)")
        let restored = try store.restore(ref("asmith/Old 3"), actor: "mkhan")
        out.append("restore \(restored.owner)/\(restored.newName)")
        clock.advance(days: 40)
        var purged: [String] = []
        let purgedCount = try store.purge(store.purgeCutoff(days: 30), actor: "mkhan", batchSize: 2) {
            purged.append("\($0.form.owner)/\($0.form.name)")
        }
        out.append("purge \(purgedCount) \(purged)")
        let policy = try store.setPolicy(.expiryDays, to: "9", defaults: .defaults, actor: "mkhan")
        out.append("policy \(policy)")
        let tree = try TreeBuilder(dir.sub("more"))
        try tree.form("jdoe/New one", created: "2026-12-01T07:00:00Z")
        try tree.form("Completed MIs/asmith/New done", created: "2026-12-01T07:00:00Z", answered: true)
        try tree.write("Error/jdoe", "tablet full\ntablet full\nsync failed\n")
        let report = try store.importTree(at: tree.root, actor: "mkhan")
        out.append("import \(report.inserted.map { "\($0.owner)/\($0.name)" }) \(report.updated.count) "
                   + "\(report.unchanged) \(report.noticesAdded) \(report.errors.count)")
        let read = try store.markAllRead(for: "jdoe", actor: "jdoe")
        out.append("markAllRead \(read)")
        return out
    }

    /// What the store holds, without the ids a retried insert may have used up (an audit row
    /// names its form's).
    func contents(_ store: FormStore) throws -> [String] {
        try store.read { db in
            var lines: [String] = []
            for row in try db.rows(literal: """
                SELECT owner, name, state, version, CASE WHEN trashed_at IS NULL THEN 0 ELSE 1 END AS trashed FROM forms ORDER BY owner, name
                """) {
                lines.append("form \(row["owner"] as String)/\(row["name"] as String) \(row["state"] as String) "
                             + "v\(row["version"] as Int) trashed \(row["trashed"] as Int)")
            }
            for row in try db.rows(literal: "SELECT uid, text, CASE WHEN read_at IS NULL THEN 0 ELSE 1 END AS read FROM notices ORDER BY uid, text, read") {
                lines.append("notice \(row["uid"] as String) \(row["text"] as String) read \(row["read"] as Int)")
            }
            for row in try db.rows(literal: "SELECT actor, command, regexp_replace(object, '^form [0-9]+ ', 'form ') AS object FROM audit ORDER BY 1, 2, 3") {
                lines.append("audit \(row["actor"] as String) \(row["command"] as String) \(row["object"] as String)")
            }
            lines.append("media \(try db.value(Int.self, literal: "SELECT count(*) FROM media") ?? -1)")
            lines.append("comments \(try db.value(Int.self, literal: "SELECT count(*) FROM foreman_comments") ?? -1)")
            return lines
        }
    }

    @Test func everyWriteRetriedAtCommitGivesTheFaultFreeResult() throws {
        let cleanDir = try TempDir(), faultDir = try TempDir()
        let cleanClock = TestClock(expiryNow), faultClock = TestClock(expiryNow)
        let clean = try seeded(cleanDir, clock: cleanClock)
        let faulted = try seeded(faultDir, clock: faultClock)
        try armCommitFault(faulted)
        let engine = try #require(faulted.engine as? PostgresEngine)
        let expected = try steps(clean, clock: cleanClock, dir: cleanDir)
        let got = try steps(faulted, clock: faultClock, dir: faultDir)
        #expect(got == expected)
        let held = try contents(faulted), expectedContents = try contents(clean)
        #expect(held == expectedContents, "\(held.difference(from: expectedContents).map { "\($0)" })")
        #expect(engine.racesRetried >= got.count, "every step's transactions failed once at COMMIT")
    }
}
