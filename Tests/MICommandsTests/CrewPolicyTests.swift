import Foundation
import MICommands
import MIDirectory
import MIStore
import Testing

/// Per-crew policy (`policy set --team`) on a real SQLite store with the crews of
/// ``CrewRuleTests/Site``: Kolonne Nord (mkhan leads; jdoe, zangstrom), Kolonne Süd (tpatel
/// leads; asmith, sobrien), slead a site lead, lchen support. The site policy is the default:
/// expiry-days 7, notify-days 1,2. At the site's clock (2026-11-30 00:53) jdoe's incomplete forms
/// are 13.7 and 10.5 days old, asmith's 19.7 and 9.7, sobrien's 13.7.
@Suite("Crew policy")
struct CrewPolicyTests {
    typealias Site = CrewRuleTests.Site

    private func text(_ value: Value) -> String? {
        switch value {
        case .string(let text): text
        default: nil
        }
    }

    /// `policy show` rows as "setting value source".
    private func shown(_ output: RecordingSink) -> [String] {
        output.rows.map { row in [row[0], row[1], row[2]].compactMap(text).joined(separator: " ") }
    }

    @Test func aForemanSetsHisCrewsExpiryAndPolicyShowListsIt() throws {
        let site = try Site()
        let set = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "14", "--note", "long jobs"])
        let record = try #require(set.records.first)
        #expect(record.values.compactMap(text) == ["expiry-days", "7", "14", "team Kolonne Nord"])

        // The site policy is unchanged: the team key is not one of the site's.
        #expect(try site.unscoped().policy(defaults: .defaults).policy == .defaults)
        #expect(try site.unscoped().policy(defaults: .defaults).sources.isEmpty)

        let mine = shown(try site.run("mkhan", ["policy"]))
        #expect(mine.contains("expiry-days 7 config"))
        #expect(mine.contains("expiry-days 14 team Kolonne Nord"))
        // The south foreman does not see the north crew's override; the site lead and support do.
        #expect(!shown(try site.run("tpatel", ["policy", "show"])).contains { $0.contains("Kolonne Nord") })
        #expect(shown(try site.run("slead", ["policy", "show"])).contains("expiry-days 14 team Kolonne Nord"))
        #expect(shown(try site.run("lchen", ["policy", "show"])).contains("expiry-days 14 team Kolonne Nord"))

        // --team: the crew's policy in force, each value with its source.
        let crew = shown(try site.run("mkhan", ["policy", "show", "--team", "Kolonne Nord"]))
        #expect(crew == ["expiry-days 14 team Kolonne Nord", "notify-days 1,2 config", "retention-days 30 config",
                         "expiry-from assigned config"])

        // Audited as policy.set, the object naming the crew.
        var audit: [AuditEntry] = []
        try site.unscoped().forEachAuditEntry { audit.append($0) }
        let entry = try #require(audit.last)
        #expect(entry.command == "policy.set")
        #expect(entry.object == "policy team Kolonne Nord expiry-days")
        #expect(entry.actor == "mkhan")
        #expect(entry.note == "long jobs")
    }

    @Test func siteRemovesAnOverrideAndTheSameValueChangesNothing() throws {
        let site = try Site()
        _ = try site.run("slead", ["policy", "set", "--team", "Kolonne Süd", "notify-days", "1,3,5"])
        let again = try site.run("slead", ["policy", "set", "--team", "Kolonne Süd", "notify-days", "1,3,5"])
        #expect(again.records.isEmpty)
        #expect(again.messages.contains { $0.contains("already") })
        #expect(try site.unscoped().crewPolicies().map(\.crew) == ["Kolonne Süd"])

        let removed = try site.run("tpatel", ["policy", "set", "--team", "Kolonne Süd", "notify-days", "site"])
        #expect(try #require(removed.records.first).values.compactMap(text) == ["notify-days", "1,3,5", "1,2", "site"])
        #expect(try site.unscoped().crewPolicies().isEmpty)
        let twice = try site.run("tpatel", ["policy", "set", "--team", "Kolonne Süd", "notify-days", "site"])
        #expect(twice.records.isEmpty)
        #expect(shown(try site.run("tpatel", ["policy", "show", "--team", "Kolonne Süd"]))
                == ["expiry-days 7 config", "notify-days 1,2 config", "retention-days 30 config", "expiry-from assigned config"])
    }

    @Test func dryRunStoresNothing() throws {
        let site = try Site()
        let before = try site.snapshot()
        let output = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "14", "--dry-run"])
        #expect(output.records.count == 1)
        #expect(try site.unscoped().crewPolicies().isEmpty)
        #expect(try site.snapshot() == before)
    }

    @Test func refusals() throws {
        let site = try Site()
        let before = try site.snapshot()
        // Another foreman's crew.
        let other = #expect(throws: (any Error).self) {
            _ = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Süd", "expiry-days", "14"])
        }
        #expect(other?.isPermissionDenied == true)
        #expect("\(other.map { "\($0)" } ?? "")".contains("Kolonne Nord"))
        // Support and technicians set no policy at all.
        for uid in ["lchen", "jdoe"] {
            let error = #expect(throws: (any Error).self) {
                _ = try site.run(uid, ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "14"])
            }
            #expect(error?.isPermissionDenied == true, "\(uid)")
        }
        // The crew's resulting policy must pass the rules: a reminder on day 2 with expiry 2.
        let broken = #expect(throws: CommandError.self) {
            _ = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "2"])
        }
        #expect("\(broken.map { "\($0)" } ?? "")".contains("never fire"))
        // A crew's retention-days passes the same rules as the site's.
        let retention = #expect(throws: CommandError.self) {
            _ = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "retention-days", "0"])
        }
        #expect("\(retention.map { "\($0)" } ?? "")".contains("retention-days must be between 1 and 3650 days"))
        // No such crew.
        #expect(throws: (any Error).self) {
            _ = try site.run("slead", ["policy", "set", "--team", "Kolonne West", "expiry-days", "14"])
        }
        #expect(try site.snapshot() == before)
        #expect(try site.unscoped().crewPolicies().isEmpty)
    }

    /// Where the site keeps crews, a site-wide value is a site lead's: a crew foreman's
    /// `policy set` without --team would change when every other crew's forms are trashed and
    /// purged. Refused with the rule, dry run included, and nothing is stored.
    @Test func siteValuesAreForSiteLeads() throws {
        let site = try Site()
        let before = try site.snapshot()
        for line in [["expiry-days", "2"], ["retention-days", "1"], ["expiry-from", "created"], ["notify-days", "1"],
                     ["expiry-days", "9", "--dry-run"]] {
            for uid in ["mkhan", "tpatel"] {
                let error = #expect(throws: CommandError.self, "\(uid) \(line)") {
                    _ = try site.run(uid, ["policy", "set"] + line)
                }
                #expect(error?.isPermissionDenied == true, "\(uid) \(line)")
                #expect(error?.description.contains("only site leads (teams.allTeamsGroup)") == true, "\(String(describing: error))")
                #expect(error?.description.contains("--team") == true)
            }
        }
        #expect(try site.snapshot() == before)
        #expect(try site.unscoped().policy(defaults: .defaults).sources.isEmpty)
        // The site lead sets the site's value.
        let set = try site.run("slead", ["policy", "set", "retention-days", "60"])
        #expect(try #require(set.records.first).values.compactMap(text) == ["retention-days", "30", "60", "store"])
        #expect(try site.unscoped().policy(defaults: .defaults).policy.retentionDays == 60)
    }

    @Test func withoutCrewsThereIsNoCrewPolicy() throws {
        let harness = try CommandHarness(user: "mkhan")
        #expect(throws: CommandError.self) { try harness.run(["policy", "set", "--team", "Kolonne Nord", "expiry-days", "14"]) }
        #expect(!harness.store.calls.contains("setCrewPolicy"))
    }

    /// Expire without --days: the north crew's forms by its 14 days (jdoe's 13.7- and 10.5-day-old
    /// forms stay), everyone else's by the site's 7. The dry run lists what the run takes.
    @Test func expireHonoursTheCrewsExpiryDays() throws {
        let site = try Site()
        _ = try site.run("slead", ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "14"])
        let preview = try site.run("slead", ["expire", "--dry-run"])
        let listed = Set(preview.rows.compactMap { row -> String? in text(row[2]) })
        #expect(listed == ["asmith", "sobrien"])
        let previewed = preview.rows.count

        let run = try site.run("slead", ["expire", "--yes"])
        #expect(run.rows.count == previewed)
        var live: [String] = []
        try site.unscoped().forEachForm { if $0.state == .incomplete { live.append($0.owner) } }
        #expect(live.sorted() == ["jdoe", "jdoe"])

        // --days still means N for everyone: jdoe's forms too.
        let days = try site.run("slead", ["expire", "--days", "7", "--dry-run"])
        #expect(days.rows.count == 2)
    }

    /// Every setting that decides when a crew's forms expire or are purged is the crew's own to
    /// set: the north crew purges after 1 day in the trash (the site after 30), and its
    /// expiry counts from creation (the site's from the last handover). The store computes
    /// both; the commands show what it computed.
    @Test func aCrewsRetentionDaysAndExpiryFromAreItsOwn() throws {
        let site = try Site()
        for (setting, value) in [("retention-days", "1"), ("expiry-from", "created")] {
            let set = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", setting, value])
            #expect(try #require(set.records.first).values.compactMap(text).last == "team Kolonne Nord")
        }
        #expect(shown(try site.run("mkhan", ["policy", "show", "--team", "Kolonne Nord"]))
                == ["expiry-days 7 config", "notify-days 1,2 config", "retention-days 1 team Kolonne Nord",
                    "expiry-from created team Kolonne Nord"])

        // A south form handed to jdoe keeps its clock from creation (19.7 days ago: past due);
        // one handed to sobrien starts again, by the site's rule.
        var forms: [Int64: FormSummary] = [:]
        try site.unscoped().forEachForm { forms[$0.id] = $0 }
        let southForm = try #require(forms[site.southIncomplete])
        let intoNorth = try site.run("slead", ["move", "\(site.southIncomplete)", "jdoe"])
        let record = try #require(intoNorth.records.first)
        let expires = try #require(record.columns.firstIndex(of: "expires"))
        #expect(time(record.values[expires]) == southForm.expires(afterDays: 7))
        let northForm = try #require(forms[site.northIncomplete])
        let intoSouth = try site.run("slead", ["move", "\(site.northIncomplete)", "sobrien"])
        #expect(time(try #require(intoSouth.records.first).values[expires]) == site.clock.now().addingTimeInterval(7 * 86_400))
        #expect(northForm.expires(afterDays: 7)! < site.clock.now())

        // To the trash: every incomplete form older than a day but the one just handed to
        // sobrien (its clock restarted); then two days on, only the north crew's purge.
        _ = try site.run("slead", ["expire", "--days", "1", "--yes"])
        var trashed: [String] = []
        try site.unscoped().forEachTrashedForm { trashed.append($0.form.owner) }
        #expect(trashed.sorted() == ["asmith", "jdoe", "jdoe", "sobrien"])
        site.clock = FixedClock(site.clock.now().addingTimeInterval(2 * 86_400))
        let preview = try site.run("slead", ["purge", "--dry-run"])
        #expect(preview.rows.compactMap { text($0[2]) }.sorted() == ["jdoe", "jdoe"])
        let purged = try site.run("slead", ["purge", "--yes"])
        #expect(purged.rows.count == 2)
        var left: [String] = []
        try site.unscoped().forEachTrashedForm { left.append($0.form.owner) }
        #expect(left.sorted() == ["asmith", "sobrien"])
        // --older-than still means N for everyone.
        #expect(try site.run("slead", ["purge", "--older-than", "1", "--dry-run"]).rows.count == 2)
    }

    /// A member of two crews with overrides: the longest expiry-days wins, with that crew's notify-days.
    @Test func severalCrewsTheLongestExpiryWins() throws {
        let nord = CrewPolicy(crew: "Kolonne Nord", values: [.expiryDays: CrewPolicyValue(text: "10", setBy: "x", setAt: Date()),
                                                             .notifyDays: CrewPolicyValue(text: "4", setBy: "x", setAt: Date())])
        let sued = CrewPolicy(crew: "Kolonne Süd", values: [.expiryDays: CrewPolicyValue(text: "20", setBy: "x", setAt: Date())])
        let tie = CrewPolicy(crew: "A-Team", values: [.expiryDays: CrewPolicyValue(text: "20", setBy: "x", setAt: Date()),
                                                      .notifyDays: CrewPolicyValue(text: "3", setBy: "x", setAt: Date())])
        let members = ["Kolonne Nord": ["both", "north"], "Kolonne Süd": ["both", "south"], "A-Team": ["tie"]]
        let policies = OwnerPolicies(site: .defaults, overrides: [nord, sued]) { members[$0] ?? [] }
        #expect(policies.policy(for: "both") == ExpiryPolicy(expiryDays: 20, notifyDays: [1, 2], retentionDays: 30))
        #expect(policies.policy(for: "north") == ExpiryPolicy(expiryDays: 10, notifyDays: [4], retentionDays: 30))
        #expect(policies.policy(for: "nobody") == .defaults)
        // A tie: the crew first by name.
        let tied = OwnerPolicies(site: .defaults, overrides: [sued, tie]) { $0 == "A-Team" || $0 == "Kolonne Süd" ? ["tie"] : [] }
        #expect(tied.policy(for: "tie").notifyDays == [3])
        #expect(tied.byOwner["tie"]?.crew == "A-Team")
    }

    /// Owners are kept in NFC: a member id the directory spells decomposed finds the store's
    /// composed owner, and the other way round; ASCII ids take no detour through Foundation.
    @Test func ownersMatchWhateverTheirUnicodeSpelling() throws {
        let nord = CrewPolicy(crew: "Kolonne Nord", values: [.expiryDays: CrewPolicyValue(text: "12", setBy: "x", setAt: Date())])
        let policies = OwnerPolicies(site: .defaults, overrides: [nord]) { _ in ["jose\u{301}", "t0001"] }
        #expect(policies.policy(for: "jos\u{e9}").expiryDays == 12)
        #expect(policies.policy(for: "jose\u{301}").expiryDays == 12)
        #expect(policies.policy(for: "t0001").expiryDays == 12)
        #expect(policies.policy(for: "t0002") == .defaults)
        #expect(OwnerPolicies(site: .defaults).policy(for: "jose\u{301}") == .defaults)
        #expect("t0001".nfc == "t0001" && "jose\u{301}".nfc == "jos\u{e9}" && "jose\u{301}".nfc.unicodeScalars.count == 4)
    }

    private func time(_ value: Value) -> Date? {
        if case .time(let date) = value { return date }
        return nil
    }

    /// Kolonne Nord keeps forms 20 days and reminds on days 1, 2 and 15; everyone else has the
    /// site's 7 days and days 1, 2. Each place that computes an expiry or a reminder says so.
    @Test func listingsRemindersWorkloadAndMoveFollowTheOwnersCrew() throws {
        let site = try Site()
        _ = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "20"])
        _ = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "notify-days", "1,2,15"])
        var forms: [Int64: FormSummary] = [:]
        try site.unscoped().forEachForm { forms[$0.id] = $0 }
        func days(_ owner: String) -> Int { owner == "jdoe" || owner == "zangstrom" ? 20 : 7 }

        // forms: the expires column.
        let listing = try site.run("slead", ["forms", "--state", "incomplete"])
        let expiresColumn = try #require(listing.columns.firstIndex(of: "expires"))
        #expect(listing.rows.count == 5)
        for row in listing.rows {
            guard case .int(let id) = row[0], let form = forms[id] else { Issue.record("no id in \(row)"); continue }
            #expect(time(row[expiresColumn]) == form.expires(afterDays: days(form.owner)), "\(form.owner)/\(form.name)")
        }

        // notifications: jdoe's forms get a day-15 reminder and expire after 20 days; asmith's do not.
        let north = try site.run("slead", ["notifications", "--user", "jdoe"])
        #expect(north.rows.contains { $0[4] == .int(15) })
        for row in north.rows {
            guard case .int(let id) = row[2], let form = forms[id] else { Issue.record("no id in \(row)"); continue }
            #expect(time(row[5]) == form.expires(afterDays: 20))
        }
        let south = try site.run("slead", ["notifications", "--user", "asmith"])
        #expect(!south.rows.isEmpty)
        #expect(!south.rows.contains { $0[4] == .int(15) })
        for row in south.rows {
            guard case .int(let id) = row[2], let form = forms[id] else { Issue.record("no id in \(row)"); continue }
            #expect(time(row[5]) == form.expires(afterDays: 7))
        }

        // workload: nextExpiry by each owner's policy.
        let workload = try site.run("slead", ["workload"])
        for owner in ["jdoe", "asmith", "sobrien"] {
            let row = try #require(workload.rows.first { $0[0] == .string(owner) }, "\(owner)")
            let expected = forms.values.filter { $0.owner == owner && $0.state == .incomplete }
                .compactMap { $0.expires(afterDays: days(owner)) }.min()
            #expect(time(row[5]) == expected, "\(owner)")
        }

        // move: a south form handed to jdoe expires by the north crew's 20 days from the move.
        let moved = try site.run("slead", ["move", "\(site.southIncomplete)", "jdoe"])
        let record = try #require(moved.records.first)
        let expires = try #require(record.columns.firstIndex(of: "expires"))
        #expect(time(record.values[expires]) == site.clock.now().addingTimeInterval(20 * 86_400))

        // undo: a north form moved within the crew and back keeps the crew's 20 days, counted
        // from the clock it had before the move (the move restarted it; the undo gives it back).
        let (session, output) = try site.session("slead")
        for words in [["move", "\(site.northIncomplete)", "zangstrom"], ["undo"]] {
            let (command, name) = try CommandHarness.parse(words)
            try session.run(command, named: name, output: output)
        }
        let back = try #require(output.rows.last)
        #expect(back[2] == .string("jdoe"))
        let northForm = try #require(forms[site.northIncomplete])
        #expect(time(back[6]) == northForm.expires(afterDays: 20))
    }

    /// remind: under the site's 7 days every form of the site has expired by now, so nobody has
    /// a reminder due; the north crew's 20 days keep jdoe's forms alive, and his day-1 and day-2
    /// reminders come due.
    @Test func remindFollowsTheOwnersCrew() throws {
        let site = try Site()
        func recipients() throws -> [String] {
            try site.run("slead", ["remind", "--dry-run"]).rows.compactMap { text($0[0]) }
        }
        #expect(try recipients().isEmpty)
        _ = try site.run("mkhan", ["policy", "set", "--team", "Kolonne Nord", "expiry-days", "20"])
        #expect(try recipients() == ["jdoe"])
    }
}
