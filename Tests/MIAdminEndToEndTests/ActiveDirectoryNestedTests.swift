import Foundation
import MITestSupport
import Testing

/// Roles and crews through nested groups on Active Directory, as a login reads them from the
/// user's `tokenGroups` (security groups), and through `memberOf` and the role group's nested
/// groups where a distribution group decides. The groups, added once per test process:
///
/// - `E2E Deep Core` (asmith) in `E2E Deep Inner` in `E2E Deep Support`: three levels;
/// - `E2E Mail Support`, a distribution group holding `E2E Deep Inner`;
/// - the crew `Kolonne Tief` under `OU=Kolonnen-deep` holding `E2E Deep Inner` and
///   `E2E Tief Leads` (tpatel, a foreman).
@Suite(.tags(.endToEnd, .ldap, .activeDirectory),
       .enabled(if: Fixture.activeDirectory != nil, "needs Scripts/ad-fixture (Scripts/test starts it)"))
struct ActiveDirectoryNestedTests {
    static let fixture: Fixture? = {
        guard let fixture = Fixture.activeDirectory else { return nil }
        let base = fixture["LDAP_BASE"], users = "CN=Users,\(base)"
        let ldif = """
            dn: CN=E2E Deep Core,\(users)
            objectClass: group
            sAMAccountName: e2e-deep-core
            member: \(fixture.users["asmith"]!.dn)

            dn: CN=E2E Deep Inner,\(users)
            objectClass: group
            sAMAccountName: e2e-deep-inner
            member: CN=E2E Deep Core,\(users)

            dn: CN=E2E Deep Support,\(users)
            objectClass: group
            sAMAccountName: e2e-deep-support
            member: CN=E2E Deep Inner,\(users)

            dn: CN=E2E Mail Support,\(users)
            objectClass: group
            sAMAccountName: e2e-mail-support
            groupType: 2
            member: CN=E2E Deep Inner,\(users)

            dn: CN=E2E Tief Leads,\(users)
            objectClass: group
            sAMAccountName: e2e-tief-leads
            member: \(fixture.users["tpatel"]!.dn)

            dn: OU=Kolonnen-deep,\(base)
            objectClass: organizationalUnit
            ou: Kolonnen-deep

            dn: CN=Kolonne Tief,OU=Kolonnen-deep,\(base)
            objectClass: group
            sAMAccountName: kolonne-tief
            member: CN=E2E Deep Inner,\(users)
            member: CN=E2E Tief Leads,\(users)

            """
        do {
            try fixture.addADEntries(ldif)
        } catch {
            fatalError("cannot add the nested groups: \(error)")
        }
        return fixture
    }()

    var fixture: Fixture { Self.fixture! }

    func config(support: String) throws -> String {
        try fixture.config { setKey(&$0, "ldap.groups.support", "CN=\(support),CN=Users,\(fixture["LDAP_BASE"])") }
    }

    func roles(_ uid: String, _ config: String) throws -> String? {
        let result = try MIAdmin.as_(uid, config: config, format: "json", ["whoami"], fixture: fixture)
        #expect(result.status == 0, "\(result.stderr)")
        let record = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (record?["roles"] as? [String])?.joined(separator: ",")
    }

    @Test func aRoleThreeGroupsDeepIsHeldAndNobodyElseGetsIt() throws {
        let config = try config(support: "E2E Deep Support")
        #expect(try roles("asmith", config) == "technician,support")
        #expect(try roles("jdoe", config) == "technician")
        #expect(try roles("mkhan", config) == "foreman")
    }

    @Test func aDistributionGroupAsRoleGroupStillGivesTheRole() throws {
        // tokenGroups lists security groups only: memberOf and the nested groups decide here.
        let config = try config(support: "E2E Mail Support")
        #expect(try roles("asmith", config) == "technician,support")
        #expect(try roles("jdoe", config) == "technician")
    }

    @Test func aCrewThroughNestedGroupsIsLedAndListed() throws {
        let config = try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", "OU=Kolonnen-deep,\(fixture["LDAP_BASE"])")
        }
        let led = try MIAdmin.as_("tpatel", config: config, format: "json", ["whoami", "teams show 'Kolonne Tief'"],
                                  fixture: fixture)
        #expect(led.status == 0, "\(led.stderr)")
        #expect(led.stdout.contains("\"crews\":\"Kolonne Tief\"") || led.stdout.contains("\"crews\": \"Kolonne Tief\""),
                "\(led.stdout)")
        #expect(led.stdout.contains("\"asmith\""), "\(led.stdout)")
        #expect(!led.stdout.contains("\"jdoe\""), "\(led.stdout)")
        // A foreman in no group of the crew leads none.
        let none = try MIAdmin.as_("mkhan", config: config, format: "json", ["whoami"], fixture: fixture)
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.contains("no crew"), "\(none.stdout)")
    }
}
