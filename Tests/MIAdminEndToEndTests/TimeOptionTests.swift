import Foundation
import MITestSupport
import Testing

/// Every time option reads what people type (`--since '2026-11-19T14:00'` means 14:00 in
/// `display.timeZone`, to the minute), refuses anything else with the accepted forms, and every
/// time shown, audit values too, is in `display.timeZone` with its offset. Through the built
/// binary with the site in Berlin (+01:00 in November).
@Suite struct TimeOptionTests {
    let fixture = Fixture.shared

    /// The sample forms, imported at 2026-11-23 09:00 in Berlin (08:00 UTC): jdoe's 'Valve
    /// check – north' was last changed 2026-11-19 12:40 UTC (13:40 in Berlin), asmith's 'Pump
    /// station 4 (2)' 2026-11-20.
    func berlinStore() throws -> String {
        let config = try fixture.config { setKey(&$0, "display.timeZone", "Europe/Berlin") }
        let imported = try run(config, "import --yes " + shellQuote(Paths.copyOfSampleTree()), now: "2026-11-23T08:00:00Z")
        #expect(imported.status == 0, "\(imported.stderr)")
        return config
    }

    func run(_ config: String, _ command: String, now: String = "2026-11-23T14:00:00Z") throws -> ProcessResult {
        try MIAdmin.run(["--config", config, "--user", "mkhan", "--format", "json", "-c", command],
                        password: fixture.password("mkhan"), environment: ["MIADMIN_NOW": now])
    }

    func rows(_ result: ProcessResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    func names(_ result: ProcessResult) throws -> Set<String> {
        Set(try rows(result).map { "\($0["owner"]!)/\($0["name"]!)" })
    }

    @Test func sinceFiltersByTheTimeOfDayInTheDisplayZone() throws {
        let config = try berlinStore()
        let both: Set = ["jdoe/Valve check – north", "asmith/Pump station 4 (2)"]
        #expect(try names(run(config, "forms --since '2026-11-19T13:30'")) == both)
        #expect(try names(run(config, "forms --since '2026-11-19T13:50'")) == ["asmith/Pump station 4 (2)"])
        #expect(try names(run(config, "forms --since '2026-11-19 13:50'")) == ["asmith/Pump station 4 (2)"])
        #expect(try names(run(config, "forms --since '2026-11-19T12:45:00Z'")) == ["asmith/Pump station 4 (2)"])
        #expect(try names(run(config, "forms --since 2026-11-19")) == both)

        // The audit trail: the import at 09:00, a move at 13:30 (Berlin).
        let move = try run(config, "move 'jdoe/Pump station 4' asmith", now: "2026-11-23T12:30:00Z")
        #expect(move.status == 0, "\(move.stderr)")
        let afternoon = try rows(run(config, "audit --since '2026-11-23T12:00'"))
        #expect(afternoon.map { $0["command"] as? String } == ["move"], "\(afternoon)")
        #expect(afternoon.first?["at"] as? String == "2026-11-23T13:30:00+01:00")
        #expect(try rows(run(config, "audit --since 12:00")).count == 1, "12:00 is today's")
        let morning = try rows(run(config, "audit --until 12:00"))
        #expect(!morning.isEmpty && morning.allSatisfy { ($0["command"] as? String)?.hasPrefix("import") == true })
    }

    @Test func anythingElseIsRefusedWithTheAcceptedForms() throws {
        let config = try berlinStore()
        for option in ["forms --since", "audit --since", "audit --until", "notifications --from"] {
            let refused = try run(config, option + " 2026-11-25Tgarbage")
            #expect(refused.status == 1, "\(option)")
            #expect(refused.stderr.contains("'2026-11-25Tgarbage': not a time") && refused.stderr.contains("2026-11-23T12:00"),
                    "\(option): \(refused.stderr)")
            #expect(refused.stdout.isEmpty || refused.stdout == "[]\n" || refused.stdout.isEmpty)
        }
    }

    /// The store writes `trashedAt` into the audit row in UTC; the console shows it in the zone.
    @Test func auditValuesAreShownInTheDisplayZone() throws {
        let config = try berlinStore()
        let expired = try run(config, "expire --yes", now: "2026-11-23T12:30:00Z")
        #expect(expired.status == 0, "\(expired.stderr)")
        let audit = try rows(run(config, "audit --command expire"))
        let after = try #require(audit.first?["after"] as? [String: Any], "\(audit)")
        #expect(after["trashedAt"] as? String == "2026-11-23T13:30:00+01:00", "\(after)")
        let table = try MIAdmin.run(["--config", config, "--user", "mkhan", "-c", "audit --command expire"],
                                    password: fixture.password("mkhan"))
        #expect(table.stdout.contains("trashedAt: 2026-11-23 13:30:00+01:00"), "\(table.stdout)")
    }
}

extension TimeOptionTests {
    /// `-2h` after a time option is its value, not an unknown option.
    @Test func aSpanBackWithItsMinusIsTheOptionsValue() throws {
        let config = try berlinStore()
        let move = try run(config, "move 'jdoe/Pump station 4' asmith", now: "2026-11-23T13:00:00Z")
        #expect(move.status == 0, "\(move.stderr)")
        let recent = try rows(run(config, "audit --since -2h --command move"))
        #expect(recent.count == 1, "\(recent)")
        #expect(try rows(run(config, "forms --since -30m", now: "2026-11-23T13:10:00Z")).map { $0["name"] as? String }
                == ["Pump station 4 (3)"])
    }
}
