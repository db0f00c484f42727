import Foundation
import MITestSupport
import Testing

/// The morning's questions through the built binary: `today`'s overview, `forms --sort` and
/// `--expires-before`, `workload --nonzero` and its crew column. The sample forms: jdoe's 'Pump
/// station 4' (incomplete, created 2026-11-16 08:15 UTC: expires 11-23 08:15 under the
/// fixture's 7 days), 'Valve check – north' (11-19 12:40, expires 11-26 12:40), 'Generator
/// monthly' (completed); asmith's 'Pump station 4' (11-10, expires 11-17) and '(2)' (11-20).
@Suite struct MorningTests {
    let now = "2026-11-26T06:00:00Z"

    func run(_ config: String, _ command: String, fixture: Fixture = .shared, limit: Int? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", config, "--user", "mkhan", "--format", "json", "-c", command],
                        password: fixture.password("mkhan"), environment: ["MIADMIN_NOW": now])
    }

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    func sampleStore(_ fixture: Fixture = .shared, importer: String = "mkhan",
                     _ edit: @escaping (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let config = try fixture.config(edit)
        let imported = try MIAdmin.run(["--config", config, "--user", importer, "-c", "import --yes " + shellQuote(Paths.copyOfSampleTree())],
                                       password: fixture.password(importer), environment: ["MIADMIN_NOW": "2026-11-21T09:00:00Z"])
        #expect(imported.status == 0, "\(imported.stderr)")
        return config
    }

    @Test func formsSortsByExpiryAndKeepsThoseExpiringBeforeATime() throws {
        let config = try sampleStore()
        let sorted = try rows(run(config, "forms --sort expires --state incomplete"))
        #expect(sorted.map { "\($0["owner"]!)/\($0["name"]!)" }
                == ["asmith/Pump station 4", "jdoe/Pump station 4", "jdoe/Valve check – north", "asmith/Pump station 4 (2)"],
                "\(sorted)")
        let overdue = try rows(run(config, "forms --sort expires --expires-before now"))
        #expect(overdue.map { "\($0["owner"]!)/\($0["name"]!)" } == ["asmith/Pump station 4", "jdoe/Pump station 4"])
        let within24h = try rows(run(config, "forms --expires-before +24h --sort owner"))
        #expect(within24h.count == 3, "the valve check expires at 12:40 today: \(within24h)")
        let modified = try rows(run(config, "forms --sort modified"))
        #expect(modified.first?["name"] as? String == "Pump station 4 (2)", "newest change first")
        let refused = try run(config, "forms --count-by owner --sort expires")
        #expect(refused.status == 1 && refused.stderr.contains("--count-by counts them"))
    }

    @Test func todayGathersTheMorningsQuestions() throws {
        let config = try sampleStore { setKey(&$0, "display.workloadLimit", 1) }
        let today = try rows(run(config, "today"))
        let byWhat = Dictionary(uniqueKeysWithValues: today.map { ($0["what"] as! String, $0) })
        #expect(byWhat["overdue"]?["count"] as? Int == 2, "\(today)")
        #expect((byWhat["overdue"]?["first"] as? [String])?.first?.contains("asmith/'Pump station 4'") == true)
        #expect(byWhat["overdue"]?["all"] as? String == "forms --sort expires --expires-before now")
        #expect(byWhat["expires within 24 h"]?["count"] as? Int == 1)
        #expect(byWhat["completed, to review"]?["count"] as? Int == 1)
        #expect(byWhat["deliveries held"]?["count"] as? Int == 0)
        let overloaded = try #require(byWhat["more than 1 incomplete"], "\(today)")
        #expect(Set(overloaded["first"] as? [String] ?? []) == ["jdoe 2", "asmith 2"], "\(overloaded)")
        // Every "all" command runs.
        for row in today {
            let all = try run(config, row["all"] as! String)
            #expect(all.status == 0, "\(row["all"]!): \(all.stderr)")
        }
    }

    @Test func workloadLeavesOutTheIdleAndNamesCrews() throws {
        let config = try sampleStore()
        let busy = try rows(run(config, "workload --nonzero"))
        #expect(Set(busy.compactMap { $0["uid"] as? String }) == ["jdoe", "asmith"], "\(busy.map { $0["uid"]! })")
        #expect(busy.allSatisfy { $0["crew"] is NSNull }, "no crews at this site")

        let crews = CrewDirectory.fixture
        let crewConfig = try sampleStore(crews, importer: "sitelead") { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", CrewDirectory.base(crews))
            setKey(&object, "teams.allTeamsGroup", CrewDirectory.siteLeadsGroup(crews))
        }
        let lead = try rows(MIAdmin.run(["--config", crewConfig, "--user", "sitelead", "--format", "json", "-c", "workload --nonzero"],
                                        password: crews.password("sitelead"), environment: ["MIADMIN_NOW": now]))
        let jdoe = try #require(lead.first { $0["uid"] as? String == "jdoe" }, "\(lead)")
        #expect(jdoe["crew"] as? String == "Kolonne Nord, Kolonne Ost", "\(jdoe)")
        #expect(lead.first { $0["uid"] as? String == "asmith" }?["crew"] as? String == "Kolonne Süd")
    }
}
