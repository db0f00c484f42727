import Foundation
import MITestSupport
import Testing

/// Hardening against the built binary, slapd and real SQLite files: the write lock, schema
/// versions, escaping of store values in errors, CSV formulas, parse-time argument checks.
@Suite(.tags(.endToEnd, .ldap)) struct HardeningTests {
    let fixture = Fixture.shared

    func store(_ build: (DocumentsTree) throws -> Void) throws -> (config: String, tree: DocumentsTree, store: String) {
        let tree = try DocumentsTree()
        try build(tree)
        let config = try fixture.store(importing: tree.root)
        return (config, tree, try fixture.storePath(config))
    }

    struct LockFailed: Error {}

    /// A `sqlite3` process holding the store's write lock (BEGIN IMMEDIATE) until `release()`.
    final class WriteLock {
        let process = Process()
        let input = Pipe()
        let output = Pipe()

        init(_ store: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            process.arguments = [store]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            // First a committed write, as a console busy writing has made: its WAL is not empty
            // (on an empty WAL, GRDB writes once when it opens the store).
            input.fileHandleForWriting.write(Data("""
                CREATE TABLE lock_probe (x); DROP TABLE lock_probe;
                BEGIN IMMEDIATE;
                SELECT 'locked';

                """.utf8))
            var seen = ""
            while !seen.contains("locked") {
                let data = output.fileHandleForReading.availableData
                guard !data.isEmpty else { throw LockFailed() }
                seen += String(decoding: data, as: UTF8.self)
            }
        }

        func release() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    @Test func aScriptImportWithoutYesIsRefusedBeforeItTouchesTheLockedStore() throws {
        let (config, tree, store) = try store { try $0.form("jdoe", "A") }
        try tree.form("jdoe", "B")
        let lock = try WriteLock(store)
        defer { lock.release() }
        // Before: the preview ran in a write transaction, waited for the lock and failed "busy"
        // (exit 2) — and would have refused for want of --yes anyway.
        let result = try MIAdmin.as_("mkhan", config: config, ["import " + shellQuote(tree.root)])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refusing without confirmation in a script; add --yes"), "\(result.stderr)")
        #expect(!result.stderr.contains("busy"))
    }

    @Test func importDryRunListsWhatWouldChangeWhileAnotherProcessHoldsTheLock() throws {
        let (config, tree, store) = try store { try $0.form("jdoe", "A") }
        try tree.form("jdoe", "B")
        let lock = try WriteLock(store)
        let result = try MIAdmin.as_("mkhan", config: config, format: "csv", ["import --dry-run " + shellQuote(tree.root)])
        lock.release()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(",jdoe,B,incomplete,would insert,"), "\(result.stdout)")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM forms") == "1")
    }

    @Test func dryRunAtThePromptIsRefusedInsteadOfHoldingTheLock() throws {
        let term = try TerminalSession(uid: "mkhan", arguments: ["--dry-run"])
        let screen = try term.waitFor("[exited 1]")
        #expect(screen.contains("--dry-run is for scripts (-c, -f or a pipe), not the prompt"))
        #expect(!screen.contains("mkhan@foreman>"))
    }

    @Test func aStoreMigratedByANewerMiadminIsRefusedAndLeftAlone() throws {
        let (config, _, store) = try store { try $0.form("jdoe", "A") }
        _ = try sqlite(store, "INSERT INTO schema_migrations (id) VALUES ('v9-from-the-future')")
        let before = try sqlite(store, "SELECT COUNT(*) FROM audit")
        let result = try MIAdmin.as_("mkhan", config: config, ["move jdoe/A asmith"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("schema version v9-from-the-future, from a newer miadmin"), "\(result.stderr)")
        #expect(result.stderr.contains("knows schema versions up to v4-write-ids"))
        #expect(try sqlite(store, "SELECT owner FROM forms") == "jdoe")
        #expect(try sqlite(store, "SELECT COUNT(*) FROM audit") == before)
    }

    @Test func aNewlineInAFormNameCannotFakeAnOutputLine() throws {
        let (config, _, _) = try store { try $0.form("jdoe", "Evil\nerror: everything is fine", completed: true) }
        let result = try MIAdmin.as_("mkhan", config: config, ["move 1 asmith"])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Evil\\x0aerror: everything is fine"), "\(result.stderr)")
    }

    @Test func csvCellsThatSpreadsheetsWouldRunAreNeutralised() throws {
        let (config, _, _) = try store { tree in
            try tree.form("jdoe", "=HYPERLINK(\"evil.example\",\"click\")")
            try tree.form("jdoe", "@SUM(A1)")
            try tree.form("jdoe", "-2+3")
        }
        let safe = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms"])
        #expect(safe.status == 0, "\(safe.stderr)")
        #expect(safe.stdout.contains(#""'=HYPERLINK(""evil.example"",""click"")""#), "\(safe.stdout)")
        #expect(safe.stdout.contains(",'@SUM(A1),") && safe.stdout.contains(",'-2+3,"))
        let raw = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms"], extra: ["--csv-raw"])
        #expect(raw.stdout.contains(#""=HYPERLINK(""evil.example"",""click"")""#) && raw.stdout.contains(",@SUM(A1),"))
    }

    @Test func malformedFormReferencesAndDatesFailAtParseTimeWithTheUsage() throws {
        for (command, value) in [("move jdoe asmith", "move: 'jdoe' is not a form (see 'help move')"),
                                 ("audit --since someday", "audit: --since: 'someday': not a time; use one of: "),
                                 ("audit --form /x", "audit: --form: '/x' is not a valid value (see 'help audit')"),
                                 ("notifications --from 2026-13-45", "notifications: --from: '2026-13-45': not a time")] {
            let result = try MIAdmin.as_("mkhan", ["\(command)"])
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains(value), "\(command): \(result.stderr)")
        }
    }
}
