import Foundation
import MITestSupport
import Testing

/// A script of moves through the built binary while the store's primary dies (`-m immediate`)
/// and its synchronous standby is promoted (or not): the script goes on with the same line and
/// exits 0, every move applied once; without a new primary it stops at the line it was on, exit
/// 2. The script is a FIFO the test writes line by line, so the primary dies between known lines.
@Suite(.tags(.endToEnd, .ldap, .postgres), .serialized) struct FailoverScriptTests {
    let fixture = Fixture.shared

    /// A running console reading its script from a FIFO.
    final class ScriptRun: @unchecked Sendable {
        let fifo: String
        private let lock = NSLock()
        private var outcome: Result<ProcessResult, Error>?
        private var writer: Int32 = -1

        init(config: String, fixture: Fixture) throws {
            fifo = try TempDir.make() + "/moves.mi"
            try #require(mkfifo(fifo, 0o600) == 0)
            Thread { [fifo] in
                let outcome = Result {
                    try MIAdmin.run(["--config", config, "--user", "mkhan", "-f", fifo], password: fixture.password("mkhan"))
                }
                self.lock.withLock { self.outcome = outcome }
            }.start()
            // The console opens the script after logging in; until then a writer cannot open it.
            while writer < 0 && !finished {
                writer = open(fifo, O_WRONLY | O_NONBLOCK)
                if writer < 0 { Thread.sleep(forTimeInterval: 0.05) }
            }
        }

        var finished: Bool { lock.withLock { outcome != nil } }

        func send(_ lines: [String]) {
            for line in lines { _ = (line + "\n").withCString { write(writer, $0, strlen($0)) } }
        }

        /// Closes the script (end of input) and waits for the console to exit.
        func finish() throws -> ProcessResult {
            if writer >= 0 { close(writer) }
            while !finished { Thread.sleep(forTimeInterval: 0.05) }
            return try lock.withLock { outcome! }.get()
        }
    }

    /// A config on the site's primary and standby (store.url naming both hosts).
    func config(_ site: PostgresSiteFixture, reconnectSeconds: Int) throws -> String {
        try site.config(fixture, url: site.failoverURL, reconnectSeconds: reconnectSeconds)
    }

    /// Imports the sample tree; returns the ids of two of jdoe's incomplete forms and one of asmith's.
    func seed(_ site: PostgresSiteFixture, config: String) throws -> [String] {
        let imported = try MIAdmin.as_("mkhan", config: config, ["import --yes \(shellQuote(try Paths.copyOfSampleTree()))"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let jdoe = try site.fixture.query("SELECT id FROM forms WHERE owner = 'jdoe' AND state = 'incomplete' ORDER BY id LIMIT 2",
                                          database: "mi").split(separator: "\n").map(String.init)
        let asmith = try site.fixture.query("SELECT id FROM forms WHERE owner = 'asmith' AND state = 'incomplete' ORDER BY id LIMIT 1",
                                            database: "mi")
        return [jdoe[0], asmith, jdoe[1]]
    }

    /// Waits until the primary holds `count` move audit rows (the lines sent so far are done).
    func waitForMoves(_ count: Int, _ site: PostgresSiteFixture, _ run: ScriptRun) throws {
        while !run.finished, try site.fixture.query("SELECT count(*) FROM audit WHERE command = 'move'", database: "mi") != "\(count)" {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A site, a console on it running a script whose first three lines (a move each of `ids`)
    /// are done: the primary can die now, between line 3 and line 4.
    func threeMovesDone(reconnectSeconds: Int) throws -> (site: PostgresSiteFixture, ids: [String], run: ScriptRun) {
        let site = try PostgresSiteFixture()
        let config = try config(site, reconnectSeconds: reconnectSeconds)
        let ids = try seed(site, config: config)
        let run = try ScriptRun(config: config, fixture: fixture)
        run.send(["move \(ids[0]) asmith", "move \(ids[1]) jdoe", "move \(ids[2]) asmith"])
        try waitForMoves(3, site, run)
        return (site, ids, run)
    }

    @Test func aScriptRidesOutAFailoverAndAppliesEveryLineOnce() throws {
        let (site, ids, run) = try threeMovesDone(reconnectSeconds: 30)
        defer { site.stop() }
        try site.failover()
        run.send(["move \(ids[0]) jdoe", "move \(ids[1]) asmith", "move \(ids[2]) jdoe"])
        let result = try run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Reconnected to the PostgreSQL store at 127.0.0.1:\(site.standbyPort) after "))
        // On the new primary: six moves, two per form, each with its notices; owners as the last line says.
        #expect(try site.queryStandby("SELECT count(*) FROM audit WHERE command = 'move'") == "6")
        #expect(try site.queryStandby("SELECT count(*) FROM notices WHERE source = 'move'") == "6")
        #expect(try site.queryStandby("SELECT count(*) FROM notices WHERE source = 'move.received'") == "6")
        let perForm = try site.queryStandby("""
            SELECT f.id || ':' || f.owner || ':' || count(a.id) FROM forms f JOIN audit a ON a.form_id = f.id AND a.command = 'move'
            GROUP BY f.id, f.owner ORDER BY f.id
            """)
        #expect(Set(perForm.split(separator: "\n").map(String.init)) == [ids[0] + ":jdoe:2", ids[1] + ":asmith:2", ids[2] + ":jdoe:2"])
    }

    @Test func withoutANewPrimaryTheScriptStopsAtItsLineWithExit2() throws {
        let (site, ids, run) = try threeMovesDone(reconnectSeconds: 2)
        defer { site.stop() }
        try site.failover(promote: false)
        run.send(["move \(ids[0]) jdoe", "move \(ids[1]) asmith"])
        let result = try run.finish()
        #expect(result.status == 2)
        let hosts = "127.0.0.1:\(site.fixture["PG_PORT"]),127.0.0.1:\(site.standbyPort)/mi"
        #expect(result.stderr.hasPrefix("\(run.fifo):4: lost the PostgreSQL store at \(hosts) and could not connect again within 2 s; "),
                "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        // The standby has exactly the three moves the primary confirmed.
        #expect(try site.queryStandby("SELECT count(*) FROM audit WHERE command = 'move'") == "3")
    }
}
