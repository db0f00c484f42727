import Foundation
import MITestSupport
import Testing

/// `miadmin --check-config`: binds as the service account and reports what miadmin sees, without
/// a user or a password; exit 1 when a check found a problem.
@Suite struct ConfigCheckTests {
    func check(_ config: String) throws -> ProcessResult {
        try MIAdmin.run(["--config", config, "--check-config"])
    }

    func line(_ result: ProcessResult, _ subject: String) -> String {
        result.lines.first { $0.dropFirst(8).hasPrefix(subject) } ?? ""
    }

    @Test func aPasswordPolicyDirectoryShowsItsRolesAndAccountStates() throws {
        let fixture = Fixture.passwordPolicy
        let result = try check(fixture.configPath)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(line(result, "directory").hasPrefix("ok"), "\(result.stdout)")
        #expect(line(result, "directory").contains("bound as service account '\(fixture["BIND_DN"])'"))
        #expect(line(result, "role technician").contains("by member; read from the group entry"), "\(result.stdout)")
        let states = line(result, "account states")
        #expect(states.hasPrefix("ok") && states.contains("password policy control is supported"), "\(states)")
        // plocked at least (plockout too once a lockout test ran).
        #expect(states.contains("pwdAccountLockedTime on ") && !states.contains("pwdAccountLockedTime on 0"), "\(states)")
        #expect(line(result, "uid prefix search").hasPrefix("ok"), "\(result.stdout)")
    }

    @Test func memberOfThatDoesNotFollowARoleGroupIsAProblemWhenChosen() throws {
        let fixture = Fixture.strict
        let group = "cn=support-unique-e2e,ou=groups,\(fixture["LDAP_BASE"])"
        try fixture.addEntries("""
            dn: \(group)
            objectClass: groupOfUniqueNames
            cn: support-unique-e2e
            uniqueMember: \(fixture.users["lchen"]!.dn)
            uniqueMember: \(fixture.users["nbody"]!.dn)

            """)
        let auto = try check(try fixture.config { setKey(&$0, "ldap.groups.support", group) })
        #expect(auto.status == 0, "\(auto.stdout)\(auto.stderr)")
        #expect(line(auto, "role foreman").contains("read from users' memberOf (memberOf names it on 2 user entries)"),
                "\(auto.stdout)")
        #expect(line(auto, "role support").contains("2 by uniqueMember; read from the group entry"), "\(auto.stdout)")
        let chosen = try check(try fixture.config {
            setKey(&$0, "ldap.groups.support", group)
            setKey(&$0, "ldap.roleSource", "memberOf")
        })
        #expect(chosen.status == 1, "\(chosen.stdout)")
        #expect(line(chosen, "role support").hasPrefix("problem"), "\(chosen.stdout)")
        #expect(line(chosen, "role support").contains("set ldap.roleSource to groups"), "\(chosen.stdout)")
    }

    @Test func crewsAndRoleGroupsTheServiceAccountCannotReadAreProblems() throws {
        let fixture = CrewDirectory.fixture
        let good = try check(try CrewDirectory.groupsConfig())
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(line(good, "crews").contains("3 crew groups readable"), "\(good.stdout)")
        #expect(line(good, "site leads").hasPrefix("ok"), "\(good.stdout)")
        let hidden = try check(try fixture.config {
            setKey(&$0, "teams.source", "groups")
            setKey(&$0, "teams.base", "ou=services,\(fixture["LDAP_BASE"])")
            setKey(&$0, "ldap.groups.support", "cn=nosuchgroup,ou=groups,\(fixture["LDAP_BASE"])")
        })
        #expect(hidden.status == 1, "\(hidden.stdout)")
        #expect(line(hidden, "crews").hasPrefix("problem"), "\(hidden.stdout)")
        #expect(line(hidden, "crews").contains("read rights on teams.base"), "\(hidden.stdout)")
        #expect(line(hidden, "role support").hasPrefix("problem"), "\(hidden.stdout)")
    }

    @Test func aRefusedServiceAccountExits2() throws {
        let dir = try TempDir.make()
        try "not-the-password".write(toFile: dir + "/bind.pw", atomically: true, encoding: .utf8)
        let result = try check(try Fixture.shared.config { setKey(&$0, "ldap.bindPasswordFile", dir + "/bind.pw") })
        #expect(result.status == 2)
        #expect(result.stderr.contains("service account"), "\(result.stderr)")
    }
}
