import Foundation
import MITestSupport
import Testing

/// The account a timer logs in as, where the site keeps crews (docs/install.md): in
/// `teams.allTeamsGroup` it works on every crew; a foreman who leads no crew would see only his
/// own forms, so `expire`, `purge` and `remind` refuse him loudly instead of reporting success
/// for work they could not see. `sitelead` is such a foreman when the config names no
/// all-teams group (he leads no crew of his own).
@Suite struct TimerAccountTests {
    let fixture = CrewDirectory.fixture

    /// Forms of both crews created 10 days ago (the site policy expires them after 7), imported by support.
    func site(_ config: String) throws -> String {
        let tree = try DocumentsTree()
        let created = Date().addingTimeInterval(-10 * 86_400).formatted(.iso8601)
        for (owner, name) in [("jdoe", "North pump"), ("asmith", "South pump")] {
            try tree.form(owner, name, created: created)
        }
        let imported = try MIAdmin.as_("lchen", config: config, ["import --yes " + shellQuote(tree.root)], fixture: fixture)
        #expect(imported.status == 0, "\(imported.stderr)")
        return config
    }

    /// `expire`, `purge` and `remind` as `sitelead` under `config` are refused, and change nothing.
    func expectSiteWideRunsRefused(_ config: String) throws {
        let store = try fixture.storePath(config)
        let before = try sqlite(store, ".dump")
        for line in ["expire --yes --note nightly", "expire --dry-run", "purge --older-than 0 --yes", "remind --dry-run"] {
            let result = try MIAdmin.as_("sitelead", config: config, [line], fixture: fixture)
            let command = String(line.split(separator: " ")[0])
            #expect(result.status == 1, "\(line): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("'\(command)' would see only your own forms: your crews hold no technician but you"),
                    "\(line): \(result.stderr)")
            #expect(result.stderr.contains("belongs in the group teams.allTeamsGroup names (none is set in"), "\(line): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(line): \(result.stdout)")
        }
        #expect(try sqlite(store, ".dump") == before)
    }

    /// With crews from the `manager` attribute, a foreman who manages nobody leads the crew of
    /// himself alone: no technician but him, so the same refusal.
    @Test func aForemanWhoseCrewHoldsOnlyHimselfIsRefusedWithManagerCrews() throws {
        try expectSiteWideRunsRefused(try site(try fixture.config { object in
            setKey(&object, "teams.source", "manager")
        }))
    }

    @Test func aForemanWhoLeadsNoCrewIsRefusedTheSiteWideRuns() throws {
        let config = try site(try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", CrewDirectory.base(fixture))
        })
        try expectSiteWideRunsRefused(config)
        // Commands scoped to the user's own forms are not refused: `whoami` says why the runs were.
        let whoami = try MIAdmin.as_("sitelead", config: config, ["whoami"], fixture: fixture)
        #expect(whoami.status == 0 && whoami.stdout.contains("you lead none"), "\(whoami.stdout) \(whoami.stderr)")
    }

    /// The refusal names the all-teams group the config gives; once the account is in it, the
    /// same lines do the whole site's work.
    @Test func theAllTeamsGroupNamedInTheRefusalIsTheFix() throws {
        let timers = CrewDirectory.siteLeadsGroup(fixture).replacingOccurrences(of: "cn=site-leads", with: "cn=timers")
        let elsewhere = try site(try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", CrewDirectory.base(fixture))
            setKey(&object, "teams.allTeamsGroup", timers)
        })
        let refused = try MIAdmin.as_("sitelead", config: elsewhere, ["expire --dry-run"], fixture: fixture)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("belongs in teams.allTeamsGroup (\(timers))"), "\(refused.stderr)")

        let config = try site(try CrewDirectory.groupsConfig())
        let listed = try MIAdmin.as_("sitelead", config: config, format: "csv", ["expire --dry-run"], fixture: fixture)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("jdoe") && listed.stdout.contains("asmith"), "\(listed.stdout)")
        let expired = try MIAdmin.as_("sitelead", config: config, ["expire --yes --note nightly"], fixture: fixture)
        #expect(expired.status == 0, "\(expired.stderr)")
        let trashed = try sqlite(fixture.storePath(config), "SELECT owner FROM forms WHERE trashed_at IS NOT NULL ORDER BY owner")
        #expect(trashed == "asmith\njdoe")
        let later = try MIAdmin.as_("sitelead", config: config, ["remind --dry-run", "purge --older-than 0 --yes"], fixture: fixture)
        #expect(later.status == 0, "\(later.stderr)")
        #expect(try sqlite(fixture.storePath(config), "SELECT count(*) FROM forms") == "0")
        // A foreman of one crew still expires that crew's forms (his choice), as before.
        let north = try site(try CrewDirectory.groupsConfig())
        #expect(try MIAdmin.as_("mkhan", config: north, ["expire --yes"], fixture: fixture).status == 0)
    }
}
