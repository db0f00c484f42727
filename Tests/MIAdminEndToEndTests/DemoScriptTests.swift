import Foundation
import MITestSupport
import Testing

/// Scripts/demo in real terminals: several demo consoles share one directory and one
/// store; the servers stop when the last console ends, also a killed one; the store is kept
/// between runs unless --fresh.
@Suite(.tags(.endToEnd, .ldap), .serialized) struct DemoScriptTests {
    @Test func consolesShareTheServersUntilTheLastEndsAndTheStoreIsKept() throws {
        let demo = try TempDir.make() + "/demo"
        let terminals = try DemoTerminals(demoDir: demo)

        // A mistyped password asks again; the demo goes on.
        try terminals.start("a", "mkhan")
        try terminals.waitFor("a", "Password for mkhan: ", deadline: 60)
        #expect(try terminals.screen("a").contains("(new; sample forms imported)"))
        try terminals.enter("a", "typo")
        try terminals.waitFor("a", "wrong password; try again")
        try terminals.enter("a", "mkhan-Pa55!")
        try terminals.waitFor("a", "mkhan@foreman> ")
        let slapd = try #require(Int32(String(contentsOfFile: demo + "/slapd.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let store = try inode(demo + "/store.sqlite")
        #expect(try terminals.screen("a").contains("Kolonne Nord (foreman mkhan"))
        let receiver = try #require(Int32(String(contentsOfFile: demo + "/outbound/receiver.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))

        // The demo site has crews, an office receiver and a mail catcher: a form submitted and
        // delivered lands in the file the demo named.
        try terminals.enter("a", "submit 'jdoe/Generator monthly' --yes")
        try terminals.waitFor("a", "submitted")
        try terminals.enter("a", "deliver")
        try terminals.waitFor("a", "(1 row)")
        let received = try String(contentsOfFile: demo + "/outbound/received.jsonl", encoding: .utf8)
        #expect(received.contains("Generator monthly"), "\(received)")

        // A second console joins the running servers.
        try terminals.start("b", "lchen")
        try terminals.waitFor("b", "Password for lchen: ", deadline: 60)
        #expect(try terminals.screen("b").contains("joining the 1 demo console(s) already running"))
        try terminals.enter("b", "lchen-Pa55!")
        try terminals.waitFor("b", "lchen@support> ")
        // The banner suggests what the role may run: support may not submit, deliver or remind.
        #expect(try terminals.screen("a").contains("remind --dry-run"))
        let supportBanner = try terminals.screen("b")
        #expect(supportBanner.contains("Try: help, today, teams") && supportBanner.contains("audit --since today"), "\(supportBanner)")
        #expect(!supportBanner.contains("submit '") && !supportBanner.contains("deliver,") && !supportBanner.contains("remind --dry-run"),
                "\(supportBanner)")

        // The first ends: the second's directory and store are still there.
        try terminals.press("a", "C-d")
        try terminals.waitFor("a", "[exited 0]")
        try terminals.enter("b", "teams")
        try terminals.waitFor("b", "(3 rows)")
        #expect(kill(slapd, 0) == 0, "slapd runs while a demo console does")

        // The last ends: the servers stop.
        try terminals.press("b", "C-d")
        try terminals.waitFor("b", "[exited 0]")
        try waitUntil("slapd has stopped", deadline: 20, every: 0.1) { kill(slapd, 0) != 0 }
        try waitUntil("the receiver has stopped", deadline: 20, every: 0.1) { kill(receiver, 0) != 0 }

        // Again: the store is the same file, not imported anew.
        try terminals.start("c", "mkhan")
        try terminals.waitFor("c", "Password for mkhan: ", deadline: 60)
        #expect(try terminals.screen("c").contains("(kept; Scripts/demo --fresh starts a new one)"))
        #expect(try inode(demo + "/store.sqlite") == store)
        // --fresh is refused while another demo console runs.
        try terminals.start("d", "mkhan", fresh: true)
        try terminals.waitFor("d", "[exited 1]", deadline: 60)
        #expect(try terminals.screen("d").contains("end them first, or run without --fresh"))

        // A console that dies without ending (kill -9) does not keep the servers up.
        let consoles = try FileManager.default.contentsOfDirectory(atPath: demo + "/consoles")
        #expect(consoles.count == 1, "\(consoles)")
        let console = try #require(consoles.first.flatMap { Int32($0) })
        let slapdAgain = try #require(Int32(String(contentsOfFile: demo + "/slapd.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(console, SIGKILL) == 0)
        try waitUntil("slapd has stopped after the console was killed", deadline: 20, every: 0.1) { kill(slapdAgain, 0) != 0 }

        // --fresh with no console running: a new store. A technician's banner names only what
        // a technician may run.
        try terminals.start("e", "jdoe", fresh: true)
        try terminals.waitFor("e", "Password for jdoe: ", deadline: 60)
        let technician = try terminals.screen("e")
        #expect(technician.contains("(new; sample forms imported)"))
        #expect(technician.contains("Logging in as jdoe. Try: help, forms, notices"), "\(technician)")
        #expect(!technician.contains("today") && !technician.contains("teams,") && !technician.contains("find '"), "\(technician)")
        #expect(try inode(demo + "/store.sqlite") != store)
        // Read while the console runs: slapd removes its pid file when the watcher stops it.
        let slapdLast = try #require(Int32(String(contentsOfFile: demo + "/slapd.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        try terminals.press("e", "C-c")
        try terminals.waitFor("e", "[exited ")
        try waitUntil("slapd has stopped after the last console", deadline: 20, every: 0.1) { kill(slapdLast, 0) != 0 }
    }

    /// `--postgres`: the same demo site on a PostgreSQL store, seeded as fully as the SQLite one
    /// (the forms the examples name, the held delivery, the form in the trash), and its server
    /// stopped with the others when the console ends.
    @Test(.tags(.postgres), .enabled(if: PostgresFixture.unavailable == nil, "\(PostgresFixture.unavailable ?? "")"))
    func thePostgresDemoIsSeededLikeTheSQLiteOne() throws {
        let demo = try TempDir.make() + "/demo"
        let terminals = try DemoTerminals(demoDir: demo)
        try terminals.start("a", "mkhan", options: ["--postgres"])
        try terminals.waitFor("a", "Password for mkhan: ", deadline: 120)
        let banner = try terminals.screen("a")
        #expect(banner.contains("demo store: postgresql://") && banner.contains("(new; sample forms imported)"), "\(banner)")
        #expect(!FileManager.default.fileExists(atPath: demo + "/store.sqlite"))
        try terminals.enter("a", "mkhan-Pa55!")
        try terminals.waitFor("a", "mkhan@foreman> ")
        try terminals.enter("a", "find 'jdoe/Pump station 12'")
        try terminals.waitFor("a", "event | import.insert")
        try terminals.enter("a", "deliveries")
        try terminals.waitFor("a", "Pump station 9")
        try terminals.enter("a", "trash")
        try terminals.waitFor("a", "11 | Hydrant 3 annual")
        let postmaster = demo + "/pg/data/postmaster.pid"
        #expect(FileManager.default.fileExists(atPath: postmaster))
        try terminals.press("a", "C-d")
        try terminals.waitFor("a", "[exited 0]")
        try waitUntil("PostgreSQL has stopped", deadline: 20, every: 0.1) { !FileManager.default.fileExists(atPath: postmaster) }
    }

    private func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw DemoTestError(description: "no \(path)") }
        return UInt64(info.st_ino)
    }
}

/// tmux windows on one private server, each running `Scripts/demo` against the same demo folder,
/// with the built binary (MIADMIN_DEMO_BIN: no build inside the tests).
final class DemoTerminals {
    private let socket = "miadmin-demo-test-\(UUID().uuidString.prefix(8))"
    private let demoDir: String
    private var started = false

    init(demoDir: String) throws { self.demoDir = demoDir }

    deinit {
        _ = try? tmux(["kill-server"])
        // Servers of a failed test: the watcher stops them once the killed consoles are gone.
    }

    func start(_ name: String, _ user: String, fresh: Bool = false, options: [String] = []) throws {
        let command = ["env", "-i", "PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=\(demoDir)-home", "TERM=xterm",
                       "LANG=C.UTF-8", "MIADMIN_DEMO_DIR=\(demoDir)", "MIADMIN_DEMO_BIN=\(Paths.binary)",
                       Paths.repoRoot + "/Scripts/demo"] + (fresh ? ["--fresh"] : []) + options + [user]
        let line = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        try tmux(["new-session", "-d", "-s", name, "-x", "150", "-y", "50",
                  "trap : INT; " + line + "; echo '[exited '$?']'; sleep 60"])
    }

    func screen(_ name: String) throws -> String { try tmux(["capture-pane", "-p", "-N", "-t", name]).stdout }

    func enter(_ name: String, _ text: String) throws {
        try tmux(["send-keys", "-t", name, "-l", text])
        usleep(150_000)
        try press(name, "Enter")
    }

    func press(_ name: String, _ key: String) throws {
        try tmux(["send-keys", "-t", name, key])
        usleep(150_000)
    }

    @discardableResult
    func waitFor(_ name: String, _ text: String, deadline: TimeInterval = 20) throws -> String {
        let end = Date().addingTimeInterval(deadline)
        var last = ""
        while Date() < end {
            last = try screen(name)
            if last.contains(text) { return last }
            usleep(100_000)
        }
        throw DemoTestError(description: "terminal \(name) never showed \"\(text)\"; screen:\n\(last)")
    }

    @discardableResult
    private func tmux(_ args: [String]) throws -> ProcessResult {
        let result = try Shell.run("/usr/bin/tmux", ["-L", socket] + args, environment: ["TERM": "xterm"], deadline: 20)
        guard result.status == 0 else { throw DemoTestError(description: "tmux \(args.first ?? ""): \(result.stderr)") }
        return result
    }
}

struct DemoTestError: Error, CustomStringConvertible {
    let description: String
}
