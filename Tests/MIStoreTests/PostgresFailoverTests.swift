import Foundation
import MITestSupport
import Synchronization
import Testing
@testable import MIPostgres
@testable import MIStore

/// A primary with a synchronous streaming standby (Scripts/pg-fixture start + standby), the
/// store's URL naming both with `target_session_attrs=read-write`: the engine rides out a lost
/// connection and a failover without losing or doubling a change. Each test owns its site.
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresFailoverTests {
    /// A store on `site` holding incomplete forms jdoe/Pump 1 ... jdoe/Pump `count`.
    func store(_ site: PostgresSiteFixture, count: Int = 4, reconnectSeconds: TimeInterval = 30) throws -> FormStore {
        let store = try FormStore(postgres: try PostgresTarget(uri: site.failoverURL), password: site.fixture.password,
                                  reconnectSeconds: reconnectSeconds)
        let dir = try TempDir()
        let tree = try TreeBuilder(dir.sub("seed"))
        for index in 1...count { try tree.form("jdoe/Pump \(index)") }
        #expect(try store.importTree(at: tree.root, actor: "seed").inserted.count == count)
        return store
    }

    /// How many move audit rows and move notices the store holds for each form name.
    func moveCounts(_ store: FormStore) throws -> [String: [Int]] {
        try store.read { db in
            var counts: [String: [Int]] = [:]
            for row in try db.rows(literal: """
                SELECT f.name, (SELECT count(*) FROM audit a WHERE a.form_id = f.id AND a.command = 'move'),
                       (SELECT count(*) FROM notices n WHERE n.form_id = f.id AND n.source = 'move')
                FROM forms f WHERE f.name LIKE 'Pump %'
                """) {
                let name: String = row[0], audits: Int = row[1], notices: Int = row[2]
                counts[name] = [audits, notices]
            }
            return counts
        }
    }

    /// The primary dies (`-m immediate`) between two moves and the standby is promoted: the next
    /// move connects to it, is applied once, and the reconnection names the standby's port.
    @Test func aFailoverBetweenCommandsIsRiddenOut() throws {
        let site = try PostgresSiteFixture()
        defer { site.stop() }
        let store = try store(site)
        try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan")
        try site.failover()
        let moved = try store.move(ref("jdoe/Pump 2"), to: "asmith", actor: "mkhan")
        #expect(moved.moved)
        let events = store.takeEvents()
        #expect(events.count == 1)
        guard case .reconnected(let host, _)? = events.first else { Issue.record("no reconnection: \(events)"); return }
        #expect(host == "127.0.0.1:\(site.standbyPort)")
        #expect(store.takeEvents().isEmpty)
        // The first move reached the standby before the primary answered (synchronous), so
        // it is there, once; so is the second.
        let counts = try moveCounts(store)
        #expect(counts["Pump 1"] == [1, 1] && counts["Pump 2"] == [1, 1] && counts["Pump 3"] == [0, 0])
        #expect(try site.queryStandby("SELECT count(*) FROM audit WHERE command = 'move'") == "2")
    }

    /// The standby is never promoted: after store.reconnectSeconds the move fails, unreachable,
    /// saying it was not applied; the primary's data (the first move) is all there is.
    @Test func noNewPrimaryWithinTheWindowFailsSayingNothingWasApplied() throws {
        let site = try PostgresSiteFixture()
        defer { site.stop() }
        let store = try store(site, reconnectSeconds: 1)
        try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan")
        try site.failover(promote: false)
        #expect { try store.move(ref("jdoe/Pump 2"), to: "asmith", actor: "mkhan") } throws: { error in
            let error = error as! StoreError
            return error.kind == .unreachable
                && error.message.contains("could not connect again within 1 s; this change was not applied.")
        }
        #expect(try site.queryStandby("SELECT count(*) FROM audit WHERE command = 'move'") == "1")
    }

    /// The COMMIT happened but its answer was lost: the primary committed locally and waited
    /// for its synchronous standby (here: one that is not there), and the connection was ended
    /// in that wait. The engine connects again, finds its write id taken, and returns the move's
    /// result without running it again: one audit row, one notice.
    @Test func aCommitWhoseAnswerWasLostIsNotRunAgain() throws {
        let site = try PostgresSiteFixture()
        defer { site.stop() }
        let store = try store(site)
        _ = try site.fixture.query("ALTER SYSTEM SET synchronous_standby_names = 'nobody'", database: "mi")
        _ = try site.fixture.query("SELECT pg_reload_conf()", database: "mi")
        // The reload is asynchronous: until the standby's walsender has read it, it still
        // confirms commits, and the move would not wait.
        try waitUntil("the standby is no longer synchronous") {
            try site.fixture.query("SELECT string_agg(sync_state, ',') FROM pg_stat_replication", database: "mi") == "async"
        }
        let outcome = Mutex<Result<MoveResult, Error>?>(nil)
        let mover = Thread {
            let result = Result { try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan") }
            outcome.withLock { $0 = result }
        }
        mover.start()
        // The move's COMMIT waits for the standby: end that backend (a crash, a network cut).
        try waitUntil("the move's COMMIT waits for the standby, and its backend is ended") {
            try #require(outcome.withLock({ $0 }) == nil, "the move ended without waiting for the standby")
            return try site.fixture.query("""
                SELECT coalesce(bool_or(pg_terminate_backend(pid)), false) FROM pg_stat_activity
                WHERE application_name = 'miadmin' AND wait_event = 'SyncRep'
                """, database: "mi") == "t"
        }
        _ = try site.fixture.query("ALTER SYSTEM SET synchronous_standby_names = '*'", database: "mi")
        _ = try site.fixture.query("SELECT pg_reload_conf()", database: "mi")
        try waitUntil("the move ends") { outcome.withLock({ $0 }) != nil }
        let result = try #require(outcome.withLock { $0 }).get()
        #expect(result.moved && result.toOwner == "asmith")
        #expect(store.takeEvents().count == 1)
        #expect(try moveCounts(store)["Pump 1"] == [1, 1])
    }

    /// The COMMIT was sent but the server ended the connection before committing (a deferred
    /// trigger ends its own backend, once): the engine connects again, finds its write id free,
    /// and runs the move again: applied exactly once.
    @Test func aCommitThatDidNotHappenIsRunAgain() throws {
        let site = try PostgresSiteFixture()
        defer { site.stop() }
        let store = try store(site)
        _ = try site.fixture.query("""
            CREATE SEQUENCE fail_once;
            CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('fail_once') = 1 THEN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                    PERFORM pg_sleep(1);
                END IF;
                RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER fail_once AFTER INSERT ON audit DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION fail_once();
            GRANT USAGE ON SEQUENCE fail_once TO miadmin;
            """, database: "mi")
        let result = try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan")
        #expect(result.moved)
        #expect(try site.fixture.query("SELECT last_value FROM fail_once", database: "mi") == "2")
        #expect(store.takeEvents().count == 1)
        #expect(try moveCounts(store)["Pump 1"] == [1, 1])
    }
}
