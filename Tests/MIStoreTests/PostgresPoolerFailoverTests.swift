import Foundation
import MITestSupport
import Testing
@testable import MIPostgres
@testable import MIStore

/// A primary, its standby and PgBouncer in front of the primary (Scripts/pg-fixture), the
/// store's URL naming PgBouncer first and the standby second with
/// `target_session_attrs=read-write`: after a failover PgBouncer still answers logins with the
/// parameters of its old server, so the console must ask for itself whether it reached a primary.
@Suite(.serialized, .tags(.postgres), .needsPostgres) struct PostgresPoolerFailoverTests {
    /// PgBouncer first, the standby second.
    func poolerFirstURL(_ site: PostgresSiteFixture) -> String {
        site.failoverURL.replacingOccurrences(of: "127.0.0.1:\(site.fixture["PG_PORT"]),",
                                              with: "127.0.0.1:\(site.fixture["PG_BOUNCER_PORT"]),")
    }

    /// A console started after the failover passes over PgBouncer (whose server is gone) and
    /// opens the store on the promoted standby within store.reconnectSeconds.
    @Test func aConsoleStartedAfterTheFailoverReachesTheStandby() throws {
        let site = try PostgresSiteFixture(bouncerMode: "transaction")
        defer { site.stop() }
        let url = poolerFirstURL(site)
        #expect(url.contains(":\(site.fixture["PG_BOUNCER_PORT"]),127.0.0.1:\(site.standbyPort)/"))
        let seed = try FormStore(postgres: try PostgresTarget(uri: url), password: site.fixture.password,
                                 reconnectSeconds: 6)
        let dir = try TempDir()
        let tree = try TreeBuilder(dir.sub("seed"))
        try tree.form("jdoe/Pump 1")
        #expect(try seed.importTree(at: tree.root, actor: "seed").inserted.count == 1)
        try site.failover()
        // Opening gives up when store.reconnectSeconds are over: that it opened is the bound.
        let store = try FormStore(postgres: try PostgresTarget(uri: url), password: site.fixture.password,
                                  reconnectSeconds: 6)
        #expect(try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan").moved)
        #expect(try site.queryStandby("SELECT count(*) FROM audit WHERE command = 'move'") == "1")
    }

    /// A console connected through PgBouncer before the failover loses its connection and
    /// connects again to the promoted standby, within store.reconnectSeconds.
    @Test func aConnectedConsoleReconnectsToTheStandby() throws {
        let site = try PostgresSiteFixture(bouncerMode: "session")
        defer { site.stop() }
        let store = try FormStore(postgres: try PostgresTarget(uri: poolerFirstURL(site)),
                                  password: site.fixture.password, reconnectSeconds: 6)
        let dir = try TempDir()
        let tree = try TreeBuilder(dir.sub("seed"))
        for index in 1...2 { try tree.form("jdoe/Pump \(index)") }
        #expect(try store.importTree(at: tree.root, actor: "seed").inserted.count == 2)
        try store.move(ref("jdoe/Pump 1"), to: "asmith", actor: "mkhan")
        try site.failover()
        #expect(try store.move(ref("jdoe/Pump 2"), to: "asmith", actor: "mkhan").moved)
        guard case .reconnected(let host, let seconds)? = store.takeEvents().first else {
            Issue.record("no reconnection"); return
        }
        #expect(host == "127.0.0.1:\(site.standbyPort)")
        #expect(seconds <= 6)
        #expect(try site.queryStandby("SELECT count(*) FROM audit WHERE command = 'move'") == "2")
    }
}
