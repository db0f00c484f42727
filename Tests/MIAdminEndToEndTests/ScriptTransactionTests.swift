import Foundation
import MITestSupport
import Testing

/// `--atomic`, `--dry-run` and confirmations in scripts.
@Suite(.tags(.endToEnd, .ldap)) struct ScriptTransactionTests {
    let fixture = Fixture.shared

    func setUp() throws -> (config: String, store: String) {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "A")
        try tree.form("jdoe", "B")
        let config = try fixture.store(importing: tree.root)
        return (config, try fixture.storePath(config))
    }

    func script(_ text: String) throws -> String {
        let path = try TempDir.make() + "/run.mi"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func owners(_ store: String) throws -> String {
        try sqlite(store, "SELECT group_concat(owner || '/' || name, ',') FROM (SELECT owner, name FROM forms ORDER BY name)")
    }

    @Test func atomicRunRollsBackEverythingWhenALineFails() throws {
        let (config, store) = try setUp()
        let path = try script("move jdoe/A asmith\nmove jdoe/B asmith\nmove jdoe/NoSuchForm asmith\n")
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "--atomic", "-f", path], password: fixture.password("mkhan"))
        #expect(result.status == 3)
        #expect(result.stderr.contains("\(path):3:"))
        #expect(result.stderr.contains("nothing was saved"))
        #expect(try owners(store) == "jdoe/A,jdoe/B")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM audit WHERE command = 'move'") == "0")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM notices") == "0")
    }

    @Test func atomicRunCommitsWhenEveryLineSucceeds() throws {
        let (config, store) = try setUp()
        let path = try script("move jdoe/A asmith\nmove jdoe/B sobrien\n")
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "--atomic", "-f", path], password: fixture.password("mkhan"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try owners(store) == "asmith/A,sobrien/B")
    }

    @Test func withoutAtomicTheLinesBeforeTheFailureStay() throws {
        let (config, store) = try setUp()
        let path = try script("move jdoe/A asmith\nmove jdoe/NoSuchForm asmith\nmove jdoe/B asmith\n")
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "-f", path], password: fixture.password("mkhan"))
        #expect(result.status == 3)
        #expect(try owners(store) == "asmith/A,jdoe/B")
    }

    @Test func dryRunPrintsWhatWouldChangeAndSavesNothing() throws {
        let (config, store) = try setUp()
        let before = try sqlite(store, "SELECT (SELECT group_concat(owner) FROM forms), (SELECT COUNT(*) FROM audit), (SELECT COUNT(*) FROM notices)")
        let path = try script("move jdoe/A asmith\nforms --owner asmith\n")
        let result = try MIAdmin.run(["--config", config, "--user", "mkhan", "--dry-run", "--format", "csv", "-f", path],
                                     password: fixture.password("mkhan"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("jdoe,asmith,A,false,true"), "the move is reported")
        #expect(result.stdout.contains(",A,asmith,incomplete,"), "later lines see the change")
        #expect(result.stderr.contains("dry run: nothing was saved"))
        #expect(try sqlite(store, "SELECT (SELECT group_concat(owner) FROM forms), (SELECT COUNT(*) FROM audit), (SELECT COUNT(*) FROM notices)") == before)
    }

    @Test func confirmationIsRefusedInScriptsWithoutYes() throws {
        let tree = try DocumentsTree()
        try tree.form("jdoe", "A")
        let config = try fixture.config()
        let refused = try MIAdmin.as_("mkhan", config: config, ["import \(shellQuote(tree.root))"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("add --yes"))
        #expect(try sqlite(try fixture.storePath(config), "SELECT COUNT(*) FROM forms") == "0")
        let global = try MIAdmin.as_("mkhan", config: config, ["import \(shellQuote(tree.root))"], extra: ["--yes"])
        #expect(global.status == 0, "\(global.stderr)")
    }

    @Test func busyStoreFailsWithExit2AfterTheTimeout() throws {
        let (config, store) = try setUp()
        // Another writer holds the store: an open IMMEDIATE transaction in the sqlite3 shell.
        let holder = try Shell.start("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", store, "BEGIN IMMEDIATE;", ".shell sleep 20"],
                                     environment: ["PATH": "/usr/bin:/bin"])
        defer { kill(holder, SIGKILL); var s: Int32 = 0; waitpid(holder, &s, 0) }
        var edited = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: config))) as! [String: Any]
        setKey(&edited, "store.busyTimeoutSeconds", 0.5)
        try JSONSerialization.data(withJSONObject: edited).write(to: URL(fileURLWithPath: config))
        // Wait until the holder has the write lock: our own BEGIN IMMEDIATE then fails at once.
        try waitUntil("the holder has the store's write lock", deadline: 20, every: 0.02) {
            (try? sqlite(store, "BEGIN IMMEDIATE; ROLLBACK;")) == nil
        }
        let result = try MIAdmin.as_("mkhan", config: config, ["move jdoe/A asmith"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("busy"))
        #expect(result.stderr.contains("The setting is store.busyTimeoutSeconds in the config file"), "\(result.stderr)")
        let path = try script("move jdoe/B asmith\n")
        let scripted = try MIAdmin.run(["--config", config, "--user", "mkhan", "-f", path], password: fixture.password("mkhan"))
        #expect(scripted.status == 2, "a busy store stops a script with exit 2")
    }
}
