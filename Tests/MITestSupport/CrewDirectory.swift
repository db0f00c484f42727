import Foundation

/// Crews in a slapd of their own: Scripts/ldap-fixture `--crews`, which Scripts/test
/// starts for `$MIADMIN_TEST_FIXTURE_CREWS` (or one started for the test process), so the
/// suites counting users and groups keep the plain fixture (docs/testing-fixture.md).
///
/// | crew | leads | works in it |
/// |---|---|---|
/// | Kolonne Nord | mkhan | jdoe, zangstrom (`cn=Zoë Ångström`), u00010 |
/// | Kolonne Süd | tpatel (also a technician) | asmith, sobrien (`cn=O'Brien\, Seán …`) |
/// | Kolonne Ost | obauer | u00001 … u00005, jdoe |
///
/// as groups under `ou=Kolonnen` and as `manager` attributes; `sitelead` (a foreman) is in
/// `cn=site-leads`, the all-teams group.
public enum CrewDirectory {
    public static let fixture: Fixture = Fixture.dedicated(variable: "MIADMIN_TEST_FIXTURE_CREWS", name: "crews",
        options: ["--crews"], what: "the crews' directory")

    public static func base(_ fixture: Fixture) -> String { fixture["CREWS_BASE"] }
    public static func siteLeadsGroup(_ fixture: Fixture) -> String { fixture["SITE_LEADS_DN"] }

    /// A config with crews from the groups under ``base(_:)``.
    public static func groupsConfig() throws -> String {
        try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", base(fixture))
            setKey(&object, "teams.allTeamsGroup", siteLeadsGroup(fixture))
        }
    }

    /// A config with crews from the `manager` attribute.
    public static func managerConfig() throws -> String {
        try fixture.config { object in
            setKey(&object, "teams.source", "manager")
            setKey(&object, "teams.allTeamsGroup", siteLeadsGroup(fixture))
        }
    }

    /// Active Directory (``Fixture/activeDirectory``) with a nested crew: `CN=Kolonne Ost` under
    /// `OU=Kolonnen-e2e` holds mkhan and the group `CN=Kolonne Ost Schicht B` (in `CN=Users`, out
    /// of the crew base), which holds jdoe and zangstrom. Added once per test process; entries
    /// already there from an earlier run against the same DC are kept.
    public static let activeDirectory: Fixture? = {
        guard let fixture = Fixture.activeDirectory else { return nil }
        let base = fixture["LDAP_BASE"]
        func dn(_ uid: String) -> String { fixture.users[uid]!.dn }
        let shift = "CN=Kolonne Ost Schicht B,CN=Users,\(base)"
        let ldif = """
            dn: OU=Kolonnen-e2e,\(base)
            objectClass: organizationalUnit
            ou: Kolonnen-e2e

            dn: \(shift)
            objectClass: group
            sAMAccountName: kolonne-ost-b
            member: \(dn("jdoe"))
            member: \(dn("zangstrom"))

            dn: CN=Kolonne Ost,OU=Kolonnen-e2e,\(base)
            objectClass: group
            sAMAccountName: kolonne-ost
            member: \(dn("mkhan"))
            member: \(shift)

            """
        do {
            try fixture.addADEntries(ldif)
        } catch {
            fatalError("cannot add the AD crews: \(error)")
        }
        return fixture
    }()
}
