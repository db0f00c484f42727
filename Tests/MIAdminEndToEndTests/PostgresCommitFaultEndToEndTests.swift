import Foundation
import MITestSupport
import Testing

/// The console on a PostgreSQL store whose every write transaction fails once with a
/// serialization failure at COMMIT (a deferred constraint trigger on `write_ids`, one row per
/// write transaction, raising 40001 whenever a sequence, which no rollback takes back, hands out
/// an odd number): `undo` and `expire --yes` are run again and do what they do without the fault;
/// an `--atomic` run, which is not run again, says last that nothing was saved.
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

    @Test func anAtomicRunWhoseCommitFailsEndsSayingNothingWasSaved() throws {
        let (config, database) = try faultedStore()
        let before = try owners(database)
        let result = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' asmith"], extra: ["--atomic"])
        #expect(result.status == 2, "\(result.stderr)")
        let lastOut = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let lastErr = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(lastOut.hasSuffix("nothing was saved"), "\(result.stdout)")
        #expect(lastErr.hasSuffix("nothing was saved"), "\(result.stderr)")
        #expect(try owners(database) == before)
    }
}
