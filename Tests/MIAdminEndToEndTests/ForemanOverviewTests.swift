import Foundation
import MITestSupport
import Testing

/// A foreman's overview: `forms --since/--name/--search`, the expires column,
/// `--count-by owner,state` with the technicians who have none, and `workload`, through the
/// built binary against the real slapd and a real store: SQLite, and the same checks on
/// PostgreSQL (the store's queries are spelled for both engines).
@Suite(.tags(.endToEnd, .ldap)) struct ForemanOverviewTests {
    let fixture = Fixture.shared

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
    }

    func names(_ result: ProcessResult) throws -> Set<String> {
        Set(try rows(result).map { "\($0["owner"]!)/\($0["name"]!)" })
    }

    /// The sample tree: jdoe has 'Pump station 4' (incomplete, created 11-16, a comment "gauge
    /// recalibrated"), 'Valve check – north' (incomplete, 11-19 12:40 UTC, answered: PX-2231-B,
    /// options Good, Noise and Electrical chosen, not "Confined space") and 'Generator monthly'
    /// (completed, 11-12, answered like the valve check); asmith has 'Pump station 4' (11-10)
    /// and 'Pump station 4 (2)' (11-20), both incomplete with the comment.
    func checkOverview(config: String) throws {
        func run(_ uid: String, _ command: String, now: String = "2026-11-21T09:00:00Z") throws -> ProcessResult {
            try MIAdmin.run(["--config", config, "--user", uid, "--format", "json", "-c", command],
                            password: fixture.password(uid), environment: ["MIADMIN_NOW": now])
        }

        // expires: created + 7 days (the fixture's policy) for incomplete forms, null otherwise.
        let listed = try rows(run("mkhan", "forms"))
        let expires = Dictionary(uniqueKeysWithValues: listed.map { ("\($0["owner"]!)/\($0["name"]!)", $0["expires"]!) })
        #expect(expires["jdoe/Pump station 4"] as? String == "2026-11-23T08:15:00Z", "\(listed)")
        #expect(expires["asmith/Pump station 4"] as? String == "2026-11-17T07:00:00Z")
        #expect(expires["jdoe/Generator monthly"] is NSNull)

        // --since: the device's saves, then a move (which restarts the expiry clock: the listing
        // shows the move's own expires).
        #expect(try names(run("mkhan", "forms --since 2026-11-19")) == ["jdoe/Valve check – north", "asmith/Pump station 4 (2)"])
        let move = try run("mkhan", "move 'asmith/Pump station 4' jdoe", now: "2026-11-24T05:38:00Z")
        #expect(move.status == 0, "\(move.stderr)")
        let moved = try JSONSerialization.jsonObject(with: Data(move.stdout.utf8)) as? [String: Any]
        #expect(moved?["expires"] as? String == "2026-12-01T05:38:00Z", "\(move.stdout)")
        let since = try rows(run("mkhan", "forms --since 1h", now: "2026-11-24T06:00:00Z"))
        #expect(since.map { "\($0["owner"]!)/\($0["name"]!)" } == ["jdoe/Pump station 4 (2)"], "\(since)")
        #expect(since.first?["expires"] as? String == "2026-12-01T05:38:00Z")
        #expect(try rows(run("mkhan", "forms --since today", now: "2026-11-25T06:00:00Z")).isEmpty)

        // --name: a glob on the name, ASCII letters in either case; --search: inside answers only.
        #expect(try names(run("mkhan", "forms --name 'pump*'"))
                == ["jdoe/Pump station 4", "jdoe/Pump station 4 (2)", "asmith/Pump station 4 (2)"])
        #expect(try names(run("mkhan", "forms --name '*(?)'")) == ["jdoe/Pump station 4 (2)", "asmith/Pump station 4 (2)"])
        #expect(try names(run("mkhan", "forms --name '*station 4\\*'")).isEmpty)
        #expect(try names(run("mkhan", "forms --search px-2231")) == ["jdoe/Valve check – north", "jdoe/Generator monthly"])
        #expect(try names(run("mkhan", "forms --search ELECTRICAL --state completed")) == ["jdoe/Generator monthly"])
        #expect(try names(run("mkhan", "forms --search 'confined space'")).isEmpty, "an option not chosen is no answer")
        #expect(try names(run("mkhan", "forms --search 'Pressure relief'")).isEmpty, "a question's text is no answer")
        #expect(try names(run("mkhan", "forms --search Recalibrated --owner 'as*'")) == ["asmith/Pump station 4 (2)"])
        let searchCount = try rows(run("mkhan", "forms --search gauge --count-by owner --owner '*h'"))
        #expect(searchCount.map { "\($0["owner"]!)=\($0["count"]!)" } == ["asmith=1"], "\(searchCount)")

        // --count-by owner,state: most first, and technicians with no form at all listed with 0.
        let counts = try rows(run("mkhan", "forms --count-by owner,state --owner 'jdoe'"))
        #expect(counts.map { "\($0["owner"]!) \($0["state"]!) \($0["count"]!)" }
                == ["jdoe incomplete 3", "jdoe completed 1"], "\(counts)")
        let withZeros = try rows(run("mkhan", "forms --count-by owner,state --state completed --owner '*'"))
        let zero = try #require(withZeros.first { $0["owner"] as? String == "asmith" })
        #expect(zero["state"] as? String == "completed" && zero["count"] as? Int == 0, "\(withZeros.prefix(3))")
        #expect(withZeros.first?["owner"] as? String == "jdoe" && withZeros.first?["count"] as? Int == 1)
        #expect(withZeros.contains { $0["owner"] as? String == "u00001" && $0["count"] as? Int == 0 })
        #expect(!withZeros.contains { $0["owner"] as? String == "mkhan" }, "a foreman only is no technician")
        #expect(try rows(run("mkhan", "forms --count-by owner --owner tpatel")).map { "\($0["owner"]!)=\($0["count"]!)" }
                == ["tpatel=0"])

        // workload: per technician, those with nothing included; a technician sees only theirs.
        let workload = try rows(run("mkhan", "workload"))
        let byUid = Dictionary(uniqueKeysWithValues: workload.map { ($0["uid"] as! String, $0) })
        let jdoe = try #require(byUid["jdoe"])
        #expect(jdoe["incomplete"] as? Int == 3 && jdoe["completed"] as? Int == 1, "\(jdoe)")
        #expect(jdoe["oldest"] as? String == "2026-11-10T07:00:00Z", "the form moved to jdoe keeps its created")
        #expect(jdoe["nextExpiry"] as? String == "2026-11-23T08:15:00Z")
        #expect(jdoe["name"] as? String == "John Doe")
        let asmith = try #require(byUid["asmith"])
        #expect(asmith["incomplete"] as? Int == 1 && asmith["oldest"] as? String == "2026-11-20T07:00:00Z")
        #expect(asmith["nextExpiry"] as? String == "2026-11-27T07:00:00Z")
        let idle = try #require(byUid["zangstrom"])
        #expect(idle["incomplete"] as? Int == 0 && idle["completed"] as? Int == 0 && idle["nextExpiry"] is NSNull)
        #expect(byUid["mkhan"] == nil && byUid["u00001"] != nil)
        let own = try rows(run("jdoe", "workload"))
        #expect(own.map { $0["uid"] as? String } == ["jdoe"])
        let refused = try run("jdoe", "workload --owner asmith")
        #expect(refused.status != 0 && refused.stderr.contains("technicians see only their own"), "\(refused.stderr)")
        let csv = try MIAdmin.as_("mkhan", config: config, format: "csv", ["workload --owner 'j*'"])
        #expect(csv.lines.first == "uid,name,incomplete,completed,oldest,nextExpiry,crew", "\(csv.stdout)")
    }

    @Test func theForemansOverviewOnSQLite() throws {
        try checkOverview(config: try fixture.store(importing: try Paths.copyOfSampleTree()))
    }

    @Test func theForemansOverviewOnPostgres() throws {
        let config = try fixture.postgresStoreWithSampleTree().config
        try checkOverview(config: config)
    }

    /// A form listing's table fits a screen: `created` and the media count are left out unless
    /// `--wide`; CSV keeps every column.
    @Test func theFormsTableLeavesOutDetailColumnsUnlessWide() throws {
        let config = try fixture.store(importing: try Paths.copyOfSampleTree())
        let table = try MIAdmin.as_("mkhan", config: config, ["forms --owner jdoe"])
        #expect(table.status == 0, "\(table.stderr)")
        let header = try #require(table.lines.first)
        #expect(header.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                == ["id", "name", "owner", "state", "template", "modified", "expires"], "\(table.stdout)")
        let widest = table.lines.map(\.count).max() ?? 0
        #expect(widest <= 132, "\(table.stdout)")
        let wide = try MIAdmin.as_("mkhan", config: config, ["forms --owner jdoe --wide"])
        #expect(wide.lines.first?.contains("| created ") == true, "\(wide.stdout)")
        #expect(wide.lines.first?.contains("| media") == true, "\(wide.stdout)")
        let csv = try MIAdmin.as_("mkhan", config: config, format: "csv", ["forms --owner jdoe"])
        #expect(csv.lines.first == "id,name,owner,state,template,created,modified,media,expires", "\(csv.stdout)")
    }
}
