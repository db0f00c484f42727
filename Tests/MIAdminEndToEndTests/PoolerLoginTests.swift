import Foundation
import MITestSupport
import Testing

/// A console started while PgBouncer refuses logins: once a server login has failed (here: the
/// server is down), PgBouncer takes a client's login and then ends the session at its first
/// query with "server login has been failing, try again later (server_login_retry)" until a
/// server login works again. The console keeps trying within store.reconnectSeconds, gets in
/// once the server is back, and names the pooler's reason when the time runs out.
@Suite(.tags(.endToEnd, .ldap, .postgres), .serialized) struct PoolerLoginTests {
    let fixture = Fixture.shared

    /// A config on the site's PgBouncer alone.
    func config(_ site: PostgresSiteFixture, reconnectSeconds: Int) throws -> String {
        try site.config(fixture, url: site.bouncerURL, reconnectSeconds: reconnectSeconds)
    }

    /// The server stopped, and a session through PgBouncer made it try its server, which
    /// refused the connection: from then on PgBouncer ends every new session at its first query,
    /// until a server login works again.
    func poolerRefusingLogins(_ site: PostgresSiteFixture) throws {
        let log = site.directory + "/pgbouncer/pgbouncer.log"
        let seen = try String(contentsOfFile: log, encoding: .utf8).count
        try site.failover(promote: false)
        // This session waits in PgBouncer for a server (query_wait_timeout) and is ended once
        // PgBouncer has tried one.
        let trigger = Process()
        trigger.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        trigger.arguments = [site.bouncerURL, "-XAtqc", "SELECT 1"]
        trigger.environment = ["PGPASSWORD": site.fixture.password]
        trigger.standardOutput = FileHandle.nullDevice
        trigger.standardError = FileHandle.nullDevice
        try trigger.run()
        try waitUntil("PgBouncer logs that it tried a server and closed the waiting session", every: 0.1) {
            try String(contentsOfFile: log, encoding: .utf8).dropFirst(seen).contains("closing because: connect failed")
        }
        // SIGKILL: psql started from the test process inherits a mask that blocks SIGTERM, and
        // would otherwise wait out PgBouncer's query_wait_timeout.
        kill(trigger.processIdentifier, SIGKILL)
        trigger.waitUntilExit()
        let refused = try Shell.run("/usr/bin/psql", [site.bouncerURL, "-XAtqc", "SELECT 1"],
                                    environment: ["PGPASSWORD": site.fixture.password], deadline: 60)
        try #require(refused.stderr.contains("server_login_retry"), "\(refused.stderr)")
    }

    @Test func aConsoleStartedWhileThePoolerRefusesLoginsGetsInOnceItTakesThemAgain() throws {
        let site = try PostgresSiteFixture(bouncerMode: "transaction")
        defer { site.stop() }
        let seeded = try MIAdmin.as_("mkhan", config: try config(site, reconnectSeconds: 30), ["forms --owner jdoe"])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        try poolerRefusingLogins(site)

        let givingUp = try MIAdmin.as_("mkhan", config: try config(site, reconnectSeconds: 2), ["forms --owner jdoe"])
        #expect(givingUp.status == 2, "\(givingUp.stderr)")
        #expect(givingUp.stderr.contains("server login has been failing, try again later (server_login_retry)"),
                "\(givingUp.stderr)")

        try site.startPrimaryAgain()
        // PgBouncer tries its server again server_login_retry (15 s) after the last failure;
        // until then it refuses, and the console keeps trying.
        let waiting = try MIAdmin.as_("mkhan", config: try config(site, reconnectSeconds: 60), ["forms --owner jdoe"])
        #expect(waiting.status == 0, "\(waiting.stderr)")
    }

    /// A console connected through PgBouncer before its server went away: PgBouncer ends each
    /// try to go on at its first query, and when store.reconnectSeconds runs out the line fails
    /// naming PgBouncer's reason, not only that the store was lost.
    @Test func aConsoleThatLosesItsStoreMidScriptNamesThePoolersReason() throws {
        let site = try PostgresSiteFixture(bouncerMode: "transaction")
        defer { site.stop() }
        let config = try config(site, reconnectSeconds: 2)
        let scripts = FailoverScriptTests()
        let ids = try scripts.seed(site, config: config)
        let run = try FailoverScriptTests.ScriptRun(config: config, fixture: fixture)
        run.send(["move \(ids[0]) asmith"])
        try scripts.waitForMoves(1, site, run)
        try poolerRefusingLogins(site)
        if run.finished {
            Issue.record("the console ended before its next line: \(try run.finish().stderr)")
            return
        }
        run.send(["move \(ids[2]) asmith"])
        let result = try run.finish()
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("could not connect again within 2 s; this change was not applied."),
                "\(result.stderr)")
        #expect(result.stderr.contains("server login has been failing, try again later (server_login_retry)"),
                "\(result.stderr)")
    }
}
