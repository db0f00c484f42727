import Foundation
import MITestSupport
import Testing

/// The console on a PostgreSQL store whose every write transaction fails once with a
/// serialization failure at COMMIT (a deferred constraint trigger on `write_ids`, one row per
/// write transaction, raising 40001 whenever a sequence, which no rollback takes back, hands out
/// an odd number): `undo` and `expire --yes` are run again and do what they do without the fault;
/// so is an `--atomic` run whose lines can be read again (`-f FILE`), showing one attempt's output;
/// one read from a pipe, which is not run again, says last that nothing was saved.
@Suite(.tags(.endToEnd, .ldap, .postgres)) struct PostgresCommitFaultEndToEndTests {
    let fixture = Fixture.shared
    let pg = PostgresFixture.shared

    /// A store with the sample tree, the fault armed, and its database's name.
    func faultedStore() throws -> (config: String, database: String) {
        let (config, url) = try fixture.postgresStoreWithSampleTree(pg)
        let database = String(url.split(separator: "?")[0].split(separator: "/").last!)
        for statement in PostgresFixture.commitFaultStatements(schema: "public") {
            _ = try pg.query(statement, database: database)
        }
        return (config, database)
    }

    func owners(_ database: String) throws -> String {
        try pg.query("SELECT string_agg(owner || '/' || name, ',' ORDER BY owner, name) FROM forms WHERE trashed_at IS NULL",
                     database: database)
    }

    @Test func undoIsRunAgainAfterALostRaceAtCommit() throws {
        let (config, database) = try faultedStore()
        let before = try owners(database)
        let result = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/*' asmith --yes", "undo --yes"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try owners(database) == before)
        #expect(try pg.query("SELECT count(*) FROM audit WHERE command = 'move'", database: database) == "4",
                "two moves and two moves back, each once")
    }

    @Test func expireIsRunAgainAfterALostRaceAtCommitAndTakesTheSameForms() throws {
        let (config, database) = try faultedStore()
        let result = try MIAdmin.as_("mkhan", config: config, format: "csv", ["expire --days 1 --yes"])
        #expect(result.status == 0, "\(result.stderr)")
        let trashed = try pg.query("SELECT count(*) FROM forms WHERE trashed_at IS NOT NULL", database: database)
        #expect(trashed != "0", "the forms the first attempt selected were expired by the second")
        #expect(try pg.query("SELECT count(*) FROM audit WHERE command = 'expire'", database: database) == trashed)
    }

    /// The script: a move and a comment, each printing a row.
    static let atomicScript = "move 'jdoe/Valve check – north' asmith\ncomment 'jdoe/Generator monthly' 'Checked twice'\n"

    func count(_ sql: String, _ database: String) throws -> String { try pg.query(sql, database: database) }

    /// ``atomicScript`` as a script file, run `--atomic` as mkhan in `format`.
    func runAtomicScript(config: String, format: String) throws -> ProcessResult {
        let script = try TempDir.make() + "/atomic.mi"
        try Self.atomicScript.write(toFile: script, atomically: true, encoding: .utf8)
        return try MIAdmin.as_("mkhan", config: config, format: format, [], extra: ["--atomic", "-f", script])
    }

    @Test func anAtomicScriptFileIsRunAgainAfterALostRaceAtCommitAndShowsOneAttempt() throws {
        let (config, database) = try faultedStore()
        let result = try runAtomicScript(config: config, format: "csv")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try count("SELECT last_value FROM commit_faults", database) == "2", "the first COMMIT failed, the second held")
        #expect(try owners(database).contains("asmith/Valve check – north"))
        #expect(try count("SELECT count(*) FROM audit WHERE command = 'move'", database) == "1")
        #expect(try count("SELECT count(*) FROM audit WHERE command = 'comment'", database) == "1")
        #expect(try count("SELECT count(*) FROM foreman_comments", database) == "1")
        #expect(try count("SELECT count(*) FROM notices WHERE source = 'move'", database) == "1")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("Valve check") }.count == 1, "\(result.stdout)")
        #expect(lines.filter { $0.contains("Checked twice") }.count == 1, "\(result.stdout)")
        #expect(!result.stdout.contains("nothing was saved") && !result.stderr.contains("nothing was saved"), "\(result.stderr)")
    }

    @Test func anAtomicScriptFileRunAgainWritesOneJSONDocument() throws {
        let (config, database) = try faultedStore()
        let result = try runAtomicScript(config: config, format: "json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try count("SELECT last_value FROM commit_faults", database) == "2")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any], "\(result.stdout)")
        #expect(document.count == 2, "the move's value and the comment's, once each: \(result.stdout)")
    }

    @Test func anAtomicScriptFileWhoseMoveLosesARaceIsRunAgain() throws {
        let (config, database) = try faultedStore()
        // The same fault met by the move's UPDATE instead of the COMMIT (where most races of
        // moves are lost): the move fails, and with it the whole transaction.
        _ = try pg.query("DROP TRIGGER fail_odd_commits ON write_ids", database: database)
        _ = try pg.query("CREATE TRIGGER fail_odd_moves AFTER UPDATE ON forms FOR EACH ROW "
                         + "WHEN (OLD.owner IS DISTINCT FROM NEW.owner) EXECUTE FUNCTION fail_odd_commits()",
                         database: database)
        let result = try runAtomicScript(config: config, format: "csv")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try count("SELECT last_value FROM commit_faults", database) == "2", "the first attempt's move failed")
        #expect(!result.stderr.contains("serialization"), "\(result.stderr)")
        #expect(try count("SELECT count(*) FROM audit WHERE command = 'move'", database) == "1")
        #expect(try count("SELECT count(*) FROM foreman_comments", database) == "1")
        #expect(result.stdout.split(separator: "\n").filter { $0.contains("Valve check") }.count == 1, "\(result.stdout)")
    }

    @Test func anAtomicRunFromAPipeWhoseCommitFailsEndsSayingNothingWasSaved() throws {
        let (config, database) = try faultedStore()
        let before = try owners(database)
        let result = try MIAdmin.as_("mkhan", config: config, [], extra: ["--atomic"], input: Self.atomicScript)
        #expect(result.status == 2, "\(result.stderr)")
        let lastOut = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let lastErr = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastOut.hasSuffix("nothing was saved"), "\(result.stdout)")
        #expect(lastErr.hasSuffix("nothing was saved"), "\(result.stderr)")
        #expect(try owners(database) == before)
        #expect(try count("SELECT count(*) FROM foreman_comments", database) == "0")
    }

    @Test func anAtomicScriptThatWroteAFileIsNotRunAgain() throws {
        let (config, database) = try faultedStore()
        let folder = try TempDir.make()
        let script = folder + "/atomic.mi"
        try ("\\o " + folder + "/moved.csv\n" + Self.atomicScript).write(toFile: script, atomically: true, encoding: .utf8)
        let result = try MIAdmin.as_("mkhan", config: config, format: "csv", [], extra: ["--atomic", "-f", script])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("not run again"), "\(result.stderr)")
        let lastErr = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastErr == "atomic run: the store could not commit it, so nothing was saved", "\(result.stderr)")
        #expect(try count("SELECT last_value FROM commit_faults", database) == "1", "one attempt only")
        #expect(try count("SELECT count(*) FROM foreman_comments", database) == "0")
    }
}
