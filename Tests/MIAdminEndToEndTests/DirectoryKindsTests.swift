import Foundation
import MITestSupport
import Testing

/// The directories the console must work on. Every test of `DirectoryKindsTests` runs on each:
/// one parameterized suite, not copies.
enum DirectoryUnderTest: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// Scripts/ldap-fixture as it was: anyone may read; roles from the groups' member lists.
    case openLDAP
    /// `--strict-acl --memberof`: users read only their own entry (a search under ou=people
    /// answers "no such object"), the service account reads everything, entries carry memberOf.
    case strictACLWithMemberOf
    /// Scripts/ad-fixture: a Samba AD DC (sAMAccountName, memberOf, a nested group, AD groups).
    case activeDirectory

    var fixture: Fixture {
        switch self {
        case .openLDAP: return .shared
        case .strictACLWithMemberOf: return .strict
        case .activeDirectory: return Fixture.activeDirectory!
        }
    }
    var testDescription: String { rawValue }

    /// The directories of this run: both slapd fixtures always; the AD DC when Scripts/test
    /// started it (`MIADMIN_TEST_FIXTURE_AD`; `MIADMIN_TEST_AD=skip` leaves it out).
    static var available: [DirectoryUnderTest] {
        Fixture.activeDirectory == nil ? [.openLDAP, .strictACLWithMemberOf] : allCases
    }
}

/// Login, `whoami`, `users`, `users --role`, `move` target checks and completion, through the
/// built binary, on each directory.
@Suite(.tags(.endToEnd, .ldap, .activeDirectory)) struct DirectoryKindsTests {
    func json(_ result: ProcessResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test(arguments: DirectoryUnderTest.available)
    func loginAndWhoamiReadRoles(_ directory: DirectoryUnderTest) throws {
        let fixture = directory.fixture
        let tpatel = try MIAdmin.as_("tpatel", format: "json", ["whoami"], fixture: fixture)
        #expect(tpatel.status == 0, "\(tpatel.stderr)")
        let me = try json(tpatel) as? [String: Any]
        #expect(me?["roles"] as? [String] == ["foreman", "technician"])
        // A DN with an escaped comma and non-ASCII letters: matched in memberOf and member alike.
        let sobrien = try MIAdmin.as_("sobrien", format: "json", ["whoami"], fixture: fixture)
        #expect(sobrien.status == 0, "\(sobrien.stderr)")
        #expect((try json(sobrien) as? [String: Any])?["roles"] as? [String] == ["technician"])
        let nbody = try MIAdmin.as_("nbody", ["whoami"], fixture: fixture)
        #expect(nbody.status == 4)
        #expect(nbody.stderr.contains("none of the console's role groups"))
    }

    @Test(arguments: DirectoryUnderTest.available)
    func usersListsEveryoneAndFiltersByRole(_ directory: DirectoryUnderTest) throws {
        let fixture = directory.fixture
        let bulk = Int(fixture["BULK_USERS"]) ?? 0
        let all = try MIAdmin.as_("mkhan", format: "csv", ["users"], fixture: fixture)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.lines.contains("tpatel,Tara Patel,tpatel@example.com,\"foreman, technician\""))
        let listed = Set(all.lines.dropFirst().map { String($0.prefix { $0 != "," }) })
        // Every person of the fixture; never a group or a machine account (AD gives both a
        // sAMAccountName too).
        #expect(Set(fixture.users.keys).isSubset(of: listed), "\(listed)")
        #expect(!listed.contains { $0.hasSuffix("$") || $0.hasPrefix("MI ") || $0 == "Field Crew" })
        let technicians = try MIAdmin.as_("mkhan", format: "csv", ["users --role technician"], fixture: fixture)
        let wanted = Set(fixture.users.values.filter { $0.roles.contains("technician") }.map(\.uid))
        let gotTechnicians = Set(technicians.lines.dropFirst().map { String($0.prefix { $0 != "," }) })
        if directory == .activeDirectory {
            #expect(all.lines.count == 1 + listed.count)
            // fnested is a technician only through the nested group Field Crew.
            #expect(gotTechnicians == wanted, "\(gotTechnicians)")
        } else {
            #expect(all.lines.count == 1 + bulk + 8)
            #expect(technicians.lines.count == 1 + bulk + 5)
            #expect(wanted.isSubset(of: gotTechnicians))
        }
        let foremen = try MIAdmin.as_("mkhan", format: "csv", ["users --role foreman"], fixture: fixture)
        #expect(foremen.lines.dropFirst().map { $0.split(separator: ",").first.map(String.init) ?? "" }.sorted()
                == ["mkhan", "tpatel"])
        let support = try MIAdmin.as_("mkhan", format: "csv", ["users --role support '*'"], fixture: fixture)
        #expect(support.lines.dropFirst().map { $0.split(separator: ",").first.map(String.init) ?? "" } == ["lchen"])
    }

    @Test(arguments: DirectoryUnderTest.available)
    func moveChecksItsTargetInTheDirectory(_ directory: DirectoryUnderTest) throws {
        let fixture = directory.fixture
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Target check")
        let config = try fixture.store(importing: tree.root)
        let toForeman = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Target check' mkhan"], fixture: fixture)
        #expect(toForeman.status != 0)
        #expect(toForeman.stderr.contains("'mkhan' is not a technician (roles: foreman)"))
        let toNobody = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Target check' nbody"], fixture: fixture)
        #expect(toNobody.stderr.contains("'nbody' is not a technician (roles: none)"))
        let toUnknown = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Target check' nosuchuser"], fixture: fixture)
        #expect(toUnknown.stderr.contains("no user 'nosuchuser' in the directory"))
        if directory == .activeDirectory {
            // userAccountControl bit 2: a disabled account receives no forms.
            let toDisabled = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Target check' dgone"], fixture: fixture)
            #expect(toDisabled.stderr.contains("'dgone' is disabled in the directory (userAccountControl)"), "\(toDisabled.stderr)")
            let state = try MIAdmin.as_("mkhan", format: "csv", ["users dgone --state"], fixture: fixture)
            #expect(state.lines.last?.hasSuffix(",disabled (userAccountControl)") == true, "\(state.stdout)")
            // A technician through the nested group is a valid target.
            let toNested = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Target check' fnested",
                                                                      "move 'fnested/Target check' jdoe"], fixture: fixture)
            #expect(toNested.status == 0, "\(toNested.stderr)")
        }
        let toTechnician = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Target check' zangstrom"], fixture: fixture)
        #expect(toTechnician.status == 0, "\(toTechnician.stderr)")
        #expect(try sqlite(try fixture.storePath(config), "SELECT owner FROM forms") == "zangstrom")
    }

    @Test(arguments: DirectoryUnderTest.available)
    func userIDsCompleteByPrefixAndTargetsOnlyTechnicians(_ directory: DirectoryUnderTest) throws {
        let prompt = "mkhan@foreman> "
        let term = try TerminalSession(uid: "mkhan", fixture: directory.fixture)
        try term.waitFor(prompt)
        try term.type("notices mk")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "notices mkhan ") == "notices mkhan ")
        try term.press("C-u")
        // A move target and --owner are technicians: mkhan (foreman only) is not offered. (The
        // `X` typed after Tab shows the Tab was handled: keys are taken in order.)
        try term.type("move 12 mk")
        try term.press("Tab")
        try term.type("X")
        #expect(try term.currentLine(prompt: prompt, becomes: "move 12 mkX") == "move 12 mkX")
        try term.press("C-u")
        // …tpatel (foreman and technician) and the escaped-DN technician are.
        try term.type("forms --owner tp")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "forms --owner tpatel ") == "forms --owner tpatel ")
        try term.press("C-u")
        try term.type("move 12 sob")
        try term.press("Tab")
        #expect(try term.currentLine(prompt: prompt, becomes: "move 12 sobrien ") == "move 12 sobrien ")
        try term.press("C-u")
        // A prefix with a filter metacharacter is escaped: it matches nothing, it is no wildcard.
        try term.type("notices *")
        try term.press("Tab")
        try term.type("X")
        #expect(try term.currentLine(prompt: prompt, becomes: "notices *X") == "notices *X")
    }
}

/// What only the hardened directory shows.
@Suite(.tags(.endToEnd, .ldap)) struct StrictDirectoryTests {
    let fixture = Fixture.strict

    @Test func rolesFromTheGroupsAreReadByTheServiceAccount() throws {
        // roleSource groups: the user may not read the groups; the service account does.
        let config = try fixture.config { setKey(&$0, "ldap.roleSource", "groups") }
        let result = try MIAdmin.as_("tpatel", config: config, format: "csv", ["whoami", "users --role foreman"], fixture: fixture)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains("tpatel,\"uid=tpatel,ou=people,dc=example,dc=com\",Tara Patel,\"foreman, technician\",password"))
        #expect(result.lines.contains { $0.hasPrefix("mkhan,") })
    }

    /// A role group that lists people by `uniqueMember`, which the memberof overlay does not
    /// follow (389's memberOf plug-in neither, by default): `roleSource: auto` reads that role
    /// from the group for everyone. lchen's entry carries memberOf values from other groups,
    /// nbody's none; before, lchen was judged by memberOf alone and had no role.
    @Test func rolesDoNotDependOnUnrelatedGroups() throws {
        let base = fixture["LDAP_BASE"]
        let group = "cn=support-unique-e2e,ou=groups,\(base)"
        let ldif = """
            dn: \(group)
            objectClass: groupOfUniqueNames
            cn: support-unique-e2e
            uniqueMember: \(fixture.users["lchen"]!.dn)
            uniqueMember: \(fixture.users["nbody"]!.dn)

            """
        try fixture.addEntries(ldif)
        let config = try fixture.config { setKey(&$0, "ldap.groups.support", group) }
        for uid in ["lchen", "nbody"] {
            let me = try MIAdmin.as_(uid, config: config, format: "csv", ["whoami"], fixture: fixture)
            #expect(me.status == 0, "\(uid): \(me.stderr)")
            #expect(me.lines.last?.hasSuffix(",support,password") == true, "\(uid): \(me.stdout)")
        }
        let listed = try MIAdmin.as_("lchen", config: config, format: "csv", ["users --role support", "users --role foreman"],
                                     fixture: fixture)
        #expect(listed.status == 0, "\(listed.stderr)")
        let uids = listed.lines.filter { !$0.hasPrefix("uid,") }.map { String($0.prefix { $0 != "," }) }
        // The support role from the group; foremen still from memberOf (the overlay follows member).
        #expect(uids == ["lchen", "nbody", "mkhan", "tpatel"], "\(listed.stdout)")
        // A user lookup (a move target check) agrees.
        let tree = try DocumentsTree()
        try tree.form("jdoe", "Role check")
        let store = try fixture.store(importing: tree.root)
        var target = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store))) as! [String: Any]
        setKey(&target, "ldap.groups.support", group)
        try JSONSerialization.data(withJSONObject: target).write(to: URL(fileURLWithPath: store))
        let move = try MIAdmin.as_("mkhan", config: store, ["move 'jdoe/Role check' nbody"], fixture: fixture)
        #expect(move.stderr.contains("'nbody' is not a technician (roles: support)"), "\(move.stderr)")
    }

    @Test func withoutAServiceAccountLoginSaysToConfigureOne() throws {
        // The directory hides ou=people from anonymous: the message names the fix (docs/security.md).
        let config = try fixture.config {
            setKey(&$0, "ldap.bindDN", nil)
            setKey(&$0, "ldap.bindPasswordFile", nil)
        }
        let result = try MIAdmin.as_("tpatel", config: config, ["whoami"], fixture: fixture)
        #expect(result.status == 1)
        #expect(result.stderr.contains("configure a service account"), "\(result.stderr)")
    }
}

/// What only Active Directory does: account states from the bind's diagnostics, login names.
@Suite(.tags(.endToEnd, .ldap, .activeDirectory), .enabled(if: Fixture.activeDirectory != nil, "needs Scripts/ad-fixture (Scripts/test starts it)"))
struct ActiveDirectoryTests {
    var fixture: Fixture { Fixture.activeDirectory! }

    func login(_ name: String, password: String) throws -> ProcessResult {
        try MIAdmin.run(["--config", fixture.configPath, "--user", name, "-c", "whoami"], password: password)
    }

    @Test func aRightPasswordOnAnUnusableAccountSaysWhyAndExits4() throws {
        let mustChange = try login("mchange", password: fixture.password("mchange"))
        #expect(mustChange.status == 4)
        #expect(mustChange.stderr.contains("must be changed"), "\(mustChange.stderr)")
        let disabled = try login("dgone", password: fixture.password("dgone"))
        #expect(disabled.status == 4)
        #expect(disabled.stderr.contains("the account is disabled"), "\(disabled.stderr)")
        // A wrong password (data 52e) and an unknown user keep the one generic message.
        let wrong = try login("mchange", password: "not-it")
        #expect(wrong.status == 4)
        #expect(wrong.stderr.contains("unknown user id or wrong password"))
        #expect(!wrong.stderr.contains("must be changed"))
        let unknown = try login("nosuchuser", password: "not-it")
        #expect(unknown.stderr.replacingOccurrences(of: "nosuchuser", with: "mchange") == wrong.stderr)
    }

    @Test func loginNamesPeopleTypeOnAD() throws {
        let upn = try login("tpatel@example.test", password: fixture.password("tpatel"))
        #expect(upn.status == 0, "\(upn.stderr)")
        #expect(upn.stdout.contains("tpatel"))
        let windows = try login("EXAMPLE\\tpatel", password: fixture.password("tpatel"))
        #expect(windows.status == 4)
        #expect(windows.stderr.contains("'tpatel'"))
        #expect(windows.stderr.contains("tpatel@example.test"))
    }

    @Test func nestedMembershipGivesTheRoleAtLogin() throws {
        let result = try MIAdmin.as_("fnested", format: "csv", ["whoami"], fixture: fixture)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.last?.hasSuffix(",technician,password") == true)
        // Without nestedGroups, direct membership only (documented): no role.
        let flat = try fixture.config { setKey(&$0, "ldap.nestedGroups", false) }
        let direct = try MIAdmin.as_("fnested", config: flat, ["whoami"], fixture: fixture)
        #expect(direct.status == 4)
        #expect(direct.stderr.contains("none of the console's role groups"))
    }

    @Test func rolesFromTheGroupsWorkOnADGroupsToo() throws {
        // roleSource groups: AD groups are objectClass=group with `member` (no groupOfNames).
        let config = try fixture.config { setKey(&$0, "ldap.roleSource", "groups") }
        let result = try MIAdmin.as_("tpatel", config: config, format: "csv", ["whoami", "users --role foreman"], fixture: fixture)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"foreman, technician\""))
        #expect(result.lines.contains { $0.hasPrefix("mkhan,") })
    }
}
