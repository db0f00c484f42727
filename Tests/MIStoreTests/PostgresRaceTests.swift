import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// Serialization failures provoked on purpose: a second connection runs a SERIALIZABLE
/// transaction against a move, and the test commits it at the moment the move waits for it
/// (seen in `pg_locks`, never by timing). A lost race is run again, whether the server stopped it
/// inside the move's pipeline or at its COMMIT; a race lost on every attempt says it was a
/// serialization failure.
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresRaceTests {
    let fixture = PostgresFixture.shared

    /// A move of jdoe's `Pump` to asmith, on its own thread.
    final class MoveInBackground: @unchecked Sendable {
        private var outcome: Result<MoveResult, any Error>?
        private let done = DispatchSemaphore(value: 0)

        init(_ store: FormStore, _ id: Int64) {
            Thread.detachNewThread { [self] in
                outcome = Result { try store.move(.id(id), to: "asmith", actor: "mkhan") }
                done.signal()
            }
        }

        /// The move's result once it ended (a minute at most: a hung move fails the test, not CI).
        func result() throws -> MoveResult {
            guard done.wait(timeout: .now() + 60) == .success, let outcome else {
                throw StoreError(.busy, "the move did not end within a minute")
            }
            return try outcome.get()
        }
    }

    /// The store, its engine, the form's id, and a second connection to the store's schema.
    func setUp(_ dir: TempDir) throws -> (FormStore, PostgresEngine, Int64, PostgresConnection, backend: Int64) {
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "asmith/Valve"])
        let engine = try #require(store.engine as? PostgresEngine)
        let schema = try #require(try store.read { try $0.value(String.self, literal: "SELECT current_schema()") })
        let backend = try #require(try store.read { try $0.value(Int64.self, literal: "SELECT pg_backend_pid()") })
        let other = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try other.execute("SET search_path = \(schema)")
        return (store, engine, try store.form(ref("jdoe/Pump")).id, other, backend)
    }

    /// Waits until `backend` waits for a lock of `type` (`transactionid`, `advisory`).
    func waitUntilBlocked(_ backend: Int64, on type: String) throws {
        let watcher = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try waitUntil("the move waits for a lock of type \(type)", every: 0.01) {
            try watcher.execute("SELECT count(*) FROM pg_locks WHERE pid = $1::int AND locktype = $2 AND NOT granted",
                                [.int(backend), .text(type)]).string(0, 0) != "0"
        }
    }

    /// Another transaction updated the form and committed while the move's UPDATE (in the
    /// pipeline with its notices and audit row) waited for that row: "could not serialize access
    /// due to concurrent update". The move runs again on a new snapshot and goes through once.
    @Test func aSerializationFailureInsideTheMovesPipelineIsRetried() throws {
        let dir = try TempDir()
        let (store, engine, id, other, backend) = try setUp(dir)
        try other.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        try other.execute("UPDATE forms SET version = version WHERE id = $1", [.int(id)])
        let move = MoveInBackground(store, id)
        try waitUntilBlocked(backend, on: "transactionid")
        try other.execute("COMMIT")
        try expectMovedOnceAfterOneRetry(try move.result(), engine, store, id)
    }

    /// Write skew: the other transaction read the form and changed the policy row the move
    /// reads; the move read that row and changed the form. Its COMMIT waits (a deferred trigger
    /// of the test's, on a lock the other holds) while the other commits, which leaves the move
    /// the pivot: the server refuses its COMMIT. The move runs again and goes through once.
    @Test func aSerializationFailureAtCommitIsRetried() throws {
        let dir = try TempDir()
        let (store, engine, id, other, backend) = try setUp(dir)
        try armWriteSkew(store, other: other, id: id)
        let move = MoveInBackground(store, id)
        try waitUntilBlocked(backend, on: "advisory")
        try other.execute("COMMIT")
        try expectMovedOnceAfterOneRetry(try move.result(), engine, store, id)
    }

    /// Two moves onto one technician at once, of forms whose index entries share pages (in a
    /// small store every entry of an index is on one page): the other transaction moves jdoe's
    /// `Gauge` to asmith as a move does (reads it by id and asmith's names, then updates owner
    /// and name), and holds the moved form's row lock until the move waits for it. Predicate
    /// locks on a B-tree are per page: a move that read its form and the target's names through
    /// the indexes inside its transaction read the pages the other writes into, and lost the race.
    /// The move reads them before its transaction and the form at its place: no race, no retry.
    @Test func movesOfFormsSharingIndexPagesDoNotRace() throws {
        let dir = try TempDir()
        let store = try MoveTests.store(dir, engine: .postgres, ["jdoe/Pump", "asmith/Valve", "jdoe/Gauge"])
        let engine = try #require(store.engine as? PostgresEngine)
        let schema = try #require(try store.read { try $0.value(String.self, literal: "SELECT current_schema()") })
        let backend = try #require(try store.read { try $0.value(Int64.self, literal: "SELECT pg_backend_pid()") })
        let other = try PostgresConnection(target: try PostgresTarget(uri: fixture.url), password: fixture.password)
        try other.execute("SET search_path = \(schema)")
        let (id, gauge) = (try store.form(ref("jdoe/Pump")).id, try store.form(ref("jdoe/Gauge")).id)
        try other.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        try other.execute("SELECT version FROM forms WHERE id = $1", [.int(gauge)])
        try other.execute("SELECT name FROM forms WHERE owner = 'asmith' AND name = 'Gauge' AND trashed_at IS NULL")
        try other.execute("SELECT id FROM forms WHERE id = $1 FOR UPDATE", [.int(id)])
        let move = MoveInBackground(store, id)
        try waitUntilBlocked(backend, on: "transactionid")
        try other.execute("UPDATE forms SET owner = 'asmith', version = version + 1 WHERE id = $1", [.int(gauge)])
        try other.execute("COMMIT")
        let result = try move.result()
        #expect(result.moved && result.newName == "Pump" && result.version == 2)
        #expect(engine.racesRetried == 0)
        #expect(try store.form(ref("asmith/Pump")).id == id && store.form(ref("asmith/Gauge")).id == gauge)
    }

    /// A move that lost its race once and went through on the second attempt: moved, saved
    /// once (one audit row), the form asmith's.
    private func expectMovedOnceAfterOneRetry(_ result: MoveResult, _ engine: PostgresEngine, _ store: FormStore,
                                              _ id: Int64) throws {
        #expect(result.moved && result.newName == "Pump" && result.version == 2)
        #expect(engine.racesRetried == 1)
        #expect(try store.form(.id(id)).owner == "asmith")
        #expect(try store.read { try $0.value(Int.self, literal: "SELECT count(*) FROM audit WHERE command = 'move'") } == 1)
    }

    /// The same two races with a single attempt allowed: the move fails as a serialization
    /// failure, in those words, and not as a name another console took; nothing changed.
    @Test func aRaceLostOnEveryAttemptSaysItWasASerializationFailure() throws {
        for atCommit in [false, true] {
            let dir = try TempDir()
            let (store, engine, id, other, backend) = try setUp(dir)
            engine.maximumAttempts = 1
            if atCommit {
                try armWriteSkew(store, other: other, id: id)
            } else {
                try other.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
                try other.execute("UPDATE forms SET version = version WHERE id = $1", [.int(id)])
            }
            let move = MoveInBackground(store, id)
            try waitUntilBlocked(backend, on: atCommit ? "advisory" : "transactionid")
            try other.execute("COMMIT")
            #expect { try move.result() } throws: { error in
                let error = error as! StoreError
                return error.kind == .conflict && error.sqlState == "40001"
                    && error.message.contains("serialization failure (SQLSTATE 40001) 1 times")
                    && error.message.contains("Nothing was changed") && !error.message.contains("got a form named")
            }
            #expect(engine.racesRetried == 0)
            #expect(try store.form(.id(id)).owner == "jdoe")
        }
    }

    /// The write skew of ``aSerializationFailureAtCommitIsRetried()``: a policy row, a deferred
    /// trigger that makes every COMMIT changing a form take a shared advisory lock, and the other
    /// transaction open holding that lock, having read the form and changed the policy row.
    func armWriteSkew(_ store: FormStore, other: PostgresConnection, id: Int64) throws {
        try store.setPolicy(.expiryDays, to: "9", defaults: .defaults, actor: "mkhan")
        let key = Int64.random(in: 1...Int64(Int32.max))
        try other.execute("""
            CREATE FUNCTION pause_at_commit() RETURNS trigger LANGUAGE plpgsql AS
            $$ BEGIN PERFORM pg_advisory_xact_lock_shared(\(key)); RETURN NULL; END $$
            """)
        try other.execute("""
            CREATE CONSTRAINT TRIGGER pause_at_commit AFTER UPDATE ON forms DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION pause_at_commit()
            """)
        try other.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        try other.execute("SELECT pg_advisory_xact_lock(\(key))")
        try other.execute("SELECT version FROM forms WHERE id = $1", [.int(id)])
        try other.execute("UPDATE policy SET value = value")
    }
}
