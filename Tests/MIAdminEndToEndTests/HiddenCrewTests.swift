import Foundation
import MITestSupport
import Testing

/// A crew base that shows the service account no crew is an error, never "you lead none": a
/// directory whose access controls hide the crew groups (389's default hides
/// groupOfUniqueNames) looks exactly like an empty or missing `teams.base`.
@Suite struct HiddenCrewTests {
    let fixture = CrewDirectory.fixture

    func config(base: String) throws -> String {
        try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", base)
            setKey(&object, "teams.allTeamsGroup", CrewDirectory.siteLeadsGroup(fixture))
        }
    }

    @Test(arguments: ["ou=services", "ou=Kolonnen-nowhere"])
    func aCrewBaseShowingNoCrewStopsCrewCommandsNamingTeamsBase(_ rdn: String) throws {
        let base = "\(rdn),\(fixture["LDAP_BASE"])"  // ou=services holds no group; the other does not exist
        let config = try config(base: base)
        // A foreman's crews cannot be known: the commands that need them stop, saying why.
        let foreman = try MIAdmin.as_("mkhan", config: config, ["forms"], fixture: fixture)
        #expect(foreman.status == 1, "\(foreman.stderr)")
        #expect(foreman.stderr.contains("teams.base '\(base)' shows the service account"), "\(foreman.stderr)")
        #expect(foreman.stderr.contains("read rights on teams.base"), "\(foreman.stderr)")
        #expect(!foreman.stdout.contains("you lead none"))
        // Support and site leads do not depend on the crews they lead: they log in and work.
        let support = try MIAdmin.as_("lchen", config: config, ["whoami", "forms"], fixture: fixture)
        #expect(support.status == 0, "\(support.stderr)")
        let siteLead = try MIAdmin.as_("sitelead", config: config, ["whoami", "forms"], fixture: fixture)
        #expect(siteLead.status == 0, "\(siteLead.stderr)")
        #expect(siteLead.stdout.contains("every crew (site lead)"), "\(siteLead.stdout)")
        // Listing every crew says the same instead of an empty list.
        let teams = try MIAdmin.as_("sitelead", config: config, ["teams"], fixture: fixture)
        #expect(teams.status == 1, "\(teams.stdout)")
        #expect(teams.stderr.contains("teams.base '\(base)'"), "\(teams.stderr)")
    }

    @Test func aForemanWhoLeadsNoCrewIsStillTold() throws {
        // A crew base that shows one crew (Kolonne Ost itself), not his: the old answer stands.
        let config = try config(base: "cn=Kolonne Ost,\(CrewDirectory.base(fixture))")
        let result = try MIAdmin.as_("mkhan", config: config, ["whoami"], fixture: fixture)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("you lead none"), "\(result.stdout)")
        #expect(!result.stderr.contains("teams.base"), "\(result.stderr)")
    }
}
