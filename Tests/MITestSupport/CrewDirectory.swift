import Foundation
import Synchronization

/// Crews in a slapd of their own (issue 22): the end-to-end crew tests add them, once per test
/// process, to the fixture in `$MIADMIN_TEST_FIXTURE_CREWS` (or one started for them), so no
/// other suite sees a site lead or a changed role group.
///
/// | crew | leads | works in it |
/// |---|---|---|
/// | Kolonne Nord | mkhan | jdoe, zangstrom (`cn=Zoë Ångström`) |
/// | Kolonne Süd | tpatel (also a technician) | asmith, sobrien (`cn=O'Brien\, Seán …`) |
///
/// as groups under `ou=Crews-e2e` and as `manager` attributes; `slead` (a foreman) is in
/// `cn=site-leads-e2e`, the all-teams group.
public enum CrewDirectory {
    public static let siteLead = Fixture.User(uid: "slead", password: "Lead-Pa55!e2e", dn: "", roles: ["foreman"])

    /// The fixture with the crews added, and the site lead among its users.
    public static let fixture: Fixture = {
        do {
            let fixture = try Fixture.dedicated(variable: "MIADMIN_TEST_FIXTURE_CREWS", name: "crews")
            try addCrews(to: fixture)
            return fixture.adding(Fixture.User(uid: siteLead.uid, password: siteLead.password,
                                               dn: "uid=slead,ou=people,\(fixture["LDAP_BASE"])", roles: ["foreman"]))
        } catch {
            fatalError("cannot set up the crews' directory: \(error)")
        }
    }()

    public static func base(_ fixture: Fixture) -> String { "ou=Crews-e2e,\(fixture["LDAP_BASE"])" }
    public static func siteLeadsGroup(_ fixture: Fixture) -> String { "cn=site-leads-e2e,ou=groups,\(fixture["LDAP_BASE"])" }

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

    private static func addCrews(to fixture: Fixture) throws {
        let base = fixture["LDAP_BASE"]
        func dn(_ uid: String) -> String { fixture.users[uid]!.dn }
        var ldif = """
            dn: ou=Crews-e2e,\(base)
            objectClass: organizationalUnit
            ou: Crews-e2e

            dn: cn=Kolonne Nord,ou=Crews-e2e,\(base)
            objectClass: groupOfNames
            cn: Kolonne Nord
            member: \(dn("mkhan"))
            member: \(dn("jdoe"))
            member: \(dn("zangstrom"))

            dn: cn=Kolonne Süd,ou=Crews-e2e,\(base)
            objectClass: groupOfNames
            cn: Kolonne Süd
            member: \(dn("tpatel"))
            member: \(dn("asmith"))
            member: \(dn("sobrien"))

            dn: uid=slead,ou=people,\(base)
            objectClass: inetOrgPerson
            uid: slead
            cn: Sam Lead
            sn: Lead
            userPassword: \(siteLead.password)

            dn: cn=site-leads-e2e,ou=groups,\(base)
            objectClass: groupOfNames
            cn: site-leads-e2e
            member: uid=slead,ou=people,\(base)

            dn: cn=foremen,ou=groups,\(base)
            changetype: modify
            add: member
            member: uid=slead,ou=people,\(base)

            """
        for (technician, foreman) in [("jdoe", "mkhan"), ("zangstrom", "mkhan"), ("asmith", "tpatel"), ("sobrien", "tpatel")] {
            ldif += "\ndn: \(dn(technician))\nchangetype: modify\nreplace: manager\nmanager: \(dn(foreman))\n"
        }
        // The entries without changetype are adds: ldapmodify -a.
        let result = try Shell.run("/usr/bin/ldapmodify", ["-a", "-x", "-ZZ", "-H", fixture["LDAP_URI"], "-D", fixture["ROOT_DN"],
                                                          "-y", fixture["ROOT_PW_FILE"]],
                                   environment: ["LDAPTLS_CACERT": fixture["CA_FILE"], "LDAPTLS_REQCERT": "demand"],
                                   input: ldif)
        guard result.status == 0 else {
            throw ShellError(description: "ldapmodify of the crews failed (\(result.status)): \(result.stderr)\(result.stdout)")
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
            let result = try Shell.run("/usr/bin/ldapmodify", ["-a", "-c", "-x", "-ZZ", "-H", fixture["LDAP_URI"],
                                                              "-D", "CN=Administrator,CN=Users,\(base)",
                                                              "-y", fixture["ADMIN_PW_FILE"]],
                                       environment: ["LDAPTLS_CACERT": fixture["CA_FILE"], "LDAPTLS_REQCERT": "demand"],
                                       input: ldif)
            let failures = (result.stderr + result.stdout).split(whereSeparator: \.isNewline)
                .filter { $0.contains("ldap_add:") && !$0.contains("Already exists") }
            guard result.status == 0 || (result.status == 68 && failures.isEmpty) else {
                fatalError("ldapmodify of the AD crews failed (\(result.status)): \(result.stderr)\(result.stdout)")
            }
        } catch {
            fatalError("cannot add the AD crews: \(error)")
        }
        return fixture
    }()
}
