import Foundation
import MITestSupport
import Testing

/// "The store is busy" names who holds it, through the built binary. The holder is
/// another miadmin: an `--atomic` run reading its commands from a pipe keeps its one
/// transaction open after the first move while it waits for the next line.
@Suite(.tags(.endToEnd, .ldap, .postgres)) struct BusyHolderTests {
    let fixture = Fixture.shared

    /// Starts `miadmin --atomic` as mkhan, fed one move and then nothing for 30 s; returns the
    /// process group's id.
    func startHolder(config: String) throws -> pid_t {
        let script = "(echo \"move 'jdoe/Pump station 4' asmith\"; sleep 30) | \(shellQuote(Paths.binary)) "
            + "--atomic --config \(shellQuote(config)) --user mkhan"
        // Its own process group (setsid), so that the test ends the pipe's processes with it.
        return try Shell.start("/usr/bin/setsid", ["/bin/bash", "-c", script],
                               environment: ["MIADMIN_PASSWORD": fixture.password("mkhan")])
    }

    func impatient(_ config: String) throws -> String {
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as! [String: Any]
        setKey(&object, "store.busyTimeoutSeconds", 0.5)
        let path = config + ".impatient.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A technician's `--atomic` script that only reads (`whoami`, `forms`) and then waits holds
    /// no write lock: another console's move goes through at once instead of "The store is busy".
    @Test func anAtomicScriptThatOnlyReadsBlocksNobody() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let store = try fixture.storePath(config)
        let asmithsBefore = try sqlite(store, "SELECT COUNT(*) FROM forms WHERE owner = 'asmith'")
        let script = "(echo whoami; echo forms; sleep 30) | \(shellQuote(Paths.binary)) "
            + "--atomic --config \(shellQuote(config)) --user jdoe"
        let reader = try Shell.start("/usr/bin/setsid", ["/bin/bash", "-c", script],
                                     environment: ["MIADMIN_PASSWORD": fixture.password("jdoe")])
        defer { kill(-reader, SIGKILL); var status: Int32 = 0; waitpid(reader, &status, 0) }
        // Time to log in, open its session transaction and list (a few milliseconds unloaded).
        sleep(3)
        let moved = try MIAdmin.as_("mkhan", config: try impatient(config), ["move 'jdoe/Pump station 4' asmith"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(kill(reader, 0) == 0, "the reading session was still open")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms WHERE owner = 'asmith'") == String(Int(asmithsBefore)! + 1))
    }

    @Test func onSQLiteTheHoldingProcessIsNamed() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let store = try fixture.storePath(config)
        let holder = try startHolder(config: config)
        defer { kill(-holder, SIGKILL); var status: Int32 = 0; waitpid(holder, &status, 0) }
        try waitUntil("the holder has the store's write lock", deadline: 30) { (try? sqlite(store, "BEGIN IMMEDIATE; ROLLBACK;")) == nil }
        let result = try MIAdmin.as_("lchen", config: try impatient(config), ["move 'asmith/Pump station 4' jdoe"])
        #expect(result.status == 2, "\(result.stderr)")
        // The pipe's miadmin (a child of the bash started), with its user and command line.
        #expect(result.stderr.contains("another process held it for more than 0.5 s: process "), "\(result.stderr)")
        #expect(result.stderr.contains(" of root ("), "\(result.stderr)")
        #expect(result.stderr.contains("/miadmin --atomic --config "), "\(result.stderr)")
        #expect(result.stderr.contains("running since "))
        #expect(result.stderr.contains("Try again, or raise the busy timeout. The setting is store.busyTimeoutSeconds"))
    }

    @Test func onPostgresTheHoldingConsoleIsNamed() throws {
        let (config, url) = try fixture.postgresStoreWithSampleTree()
        let database = String(url.split(separator: "?")[0].split(separator: "/").last!)
        let holder = try startHolder(config: config)
        defer { kill(-holder, SIGKILL); var status: Int32 = 0; waitpid(holder, &status, 0) }
        try waitUntil("the holder's move holds its row", deadline: 30) {
            try PostgresFixture.shared.query("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'miadmin: mkhan move' "
                         + "AND backend_xid IS NOT NULL", database: database) == "1"
        }
        // The form the holder moved (its row is locked until the holder's transaction ends).
        let result = try MIAdmin.as_("lchen", config: try impatient(config), ["move 'jdoe/Pump station 4' tpatel"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("longer than the busy timeout: probably mkhan running 'move', server process "),
                "\(result.stderr)")
        #expect(result.stderr.contains(", in a transaction since "))
    }
}
