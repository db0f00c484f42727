import Foundation
import MITestSupport
import Testing

/// Single sign-on on the Samba AD DC's KDC (Scripts/ad-fixture): `kinit`, then the built binary
/// logs in with the ticket (a SASL GSSAPI bind) with no password; the service account binds from
/// its keytab. Each test has a credential cache of its own (KRB5CCNAME) and the fixture's
/// krb5.conf (KRB5_CONFIG: the machine's names another realm).
@Suite(.enabled(if: Fixture.activeDirectory != nil, "needs Scripts/ad-fixture (Scripts/test starts it)"))
struct KerberosLoginTests {
    let fixture = Fixture.activeDirectory!
    let cache: String
    var kerberosConfig: String { fixture["MIADMIN_CONFIG_KERBEROS"] }
    var keytabConfig: String { fixture["MIADMIN_CONFIG_KEYTAB"] }

    init() throws {
        cache = try TempDir.make() + "/krb5cc"
    }

    var environment: [String: String] {
        ["KRB5_CONFIG": fixture["KRB5_CONFIG_FILE"], "KRB5CCNAME": "FILE:" + cache]
    }

    /// `kinit` as `uid` with the fixture's password, into this test's cache; `lifetime` as kinit's -l.
    func kinit(_ uid: String, lifetime: String? = nil) throws {
        let result = try Shell.run("/usr/bin/kinit", (lifetime.map { ["-l", $0] } ?? []) + ["\(uid)@\(fixture["REALM"])"],
                                   environment: environment, input: fixture.password(uid) + "\n")
        try #require(result.status == 0, "kinit \(uid): \(result.stderr)")
    }

    func miadmin(_ arguments: [String], password: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(arguments, password: password, environment: environment)
    }

    func whoami(_ result: ProcessResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func aTicketLogsInWithoutPasswordOrUser() throws {
        try kinit("tpatel")
        let result = try miadmin(["--config", kerberosConfig, "--format", "json", "-c", "whoami"])
        #expect(result.status == 0, "\(result.stderr)")
        let me = try whoami(result)
        #expect(me["uid"] as? String == "tpatel")
        #expect(me["roles"] as? [String] == ["foreman", "technician"])
        #expect(me["auth"] as? String == "kerberos")
    }

    @Test func withoutAServiceAccountTheTicketHolderReadsTheirOwnRoles() throws {
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: kerberosConfig)))
                                  as? [String: Any])
        setKey(&object, "ldap.bindDN", nil)
        setKey(&object, "ldap.bindPasswordFile", nil)
        let path = try TempDir.make() + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        try kinit("asmith")
        let result = try miadmin(["--config", path, "--format", "json", "-c", "whoami"])
        #expect(result.status == 0, "\(result.stderr)")
        let me = try whoami(result)
        #expect(me["uid"] as? String == "asmith")
        #expect(me["roles"] as? [String] == ["technician"])
        #expect(me["auth"] as? String == "kerberos")
    }

    @Test func aTicketLogsInWithItsOwnUserNamed() throws {
        try kinit("fnested")
        for user in ["fnested", "FNested", "fnested@example.test"] {
            let result = try miadmin(["--config", kerberosConfig, "--user", user, "--format", "json", "-c", "whoami"])
            #expect(result.status == 0, "\(user): \(result.stderr)")
            let me = try whoami(result)
            #expect(me["uid"] as? String == "fnested")
            // Through the nested group, read as after a password login.
            #expect(me["roles"] as? [String] == ["technician"])
            #expect(me["auth"] as? String == "kerberos")
        }
    }

    @Test func noTicketInAScriptExitsFourSayingRunKinit() throws {
        for user in [[], ["--user", "mkhan"]] {
            let result = try miadmin(["--config", kerberosConfig] + user + ["-c", "whoami"])
            #expect(result.status == 4, "\(result.stderr)")
            #expect(result.stderr.contains("no valid Kerberos ticket found"), "\(result.stderr)")
            #expect(result.stderr.contains("run kinit"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func anExpiredTicketInAScriptExitsFour() throws {
        try kinit("mkhan", lifetime: "3s")
        Thread.sleep(forTimeInterval: 4)
        // The cache still holds the ticket; klist -s tells it is no longer valid.
        let klist = try Shell.run("/usr/bin/klist", ["-s"], environment: environment)
        try #require(klist.status != 0, "the ticket should have expired")
        let result = try miadmin(["--config", kerberosConfig, "-c", "whoami"])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("no valid Kerberos ticket found (the ticket in your credential cache has expired)"),
                "\(result.stderr)")
        #expect(result.stderr.contains("run kinit"))
    }

    @Test func aTicketForAnotherUserTakesThePasswordPath() throws {
        try kinit("jdoe")
        // Without a password the password path refuses, as without Kerberos: the ticket of
        // jdoe is not used for mkhan, nor is the run logged in as jdoe.
        let refused = try miadmin(["--config", kerberosConfig, "--user", "mkhan", "-c", "whoami"])
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("empty password"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("Kerberos"))
        let withPassword = try miadmin(["--config", kerberosConfig, "--user", "mkhan", "--format", "json", "-c", "whoami"],
                                       password: fixture.password("mkhan"))
        #expect(withPassword.status == 0, "\(withPassword.stderr)")
        let me = try whoami(withPassword)
        #expect(me["uid"] as? String == "mkhan")
        #expect(me["auth"] as? String == "password")
    }

    @Test func aPasswordLoginStillWorksWithKerberosConfigured() throws {
        // No ticket at all, a password given: the password path, as without Kerberos.
        for config in [kerberosConfig, keytabConfig] {
            let result = try miadmin(["--config", config, "--user", "lchen", "--format", "json", "-c", "whoami"],
                                     password: fixture.password("lchen"))
            #expect(result.status == 0, "\(config): \(result.stderr)")
            let me = try whoami(result)
            #expect(me["roles"] as? [String] == ["support"])
            #expect(me["auth"] as? String == "password")
            let wrong = try miadmin(["--config", config, "--user", "lchen", "-c", "whoami"], password: "not-it")
            #expect(wrong.status == 4, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("unknown user id or wrong password"), "\(wrong.stderr)")
        }
    }

    /// Samba has no "Who am I?" operation: the identity is SASL's record of the principal, and
    /// a ticket of a realm the config does not take for the directory's is refused before any
    /// bind, naming the realm.
    @Test func aTicketOfARealmNotTheDirectorysIsRefusedNamingIt() throws {
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: kerberosConfig)))
                                  as? [String: Any])
        setKey(&object, "ldap.kerberos.realms", ["OTHER.TEST"])
        let path = try TempDir.make() + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        try kinit("tpatel")
        let result = try miadmin(["--config", path, "-c", "whoami"])
        #expect(result.status == 4, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("'tpatel@\(fixture["REALM"])' is of the realm \(fixture["REALM"]), not of the directory's (OTHER.TEST"),
                "\(result.stderr)")
    }

    /// A principal the DC authenticates whose account is not under `ldap.userBase` (a user in
    /// another OU) is no console user: refused, naming the principal, though its ticket is good.
    @Test func aTicketOfAnAccountOutsideTheUserBaseIsRefusedNamingThePrincipal() throws {
        let conf = fixture.directory + "/dc/etc/smb.conf"
        let suffix = String(UUID().uuidString.prefix(6).lowercased())
        let ou = "OU=Elsewhere\(suffix)", name = "out\(suffix)", password = "Outside-Pa55"
        try #require(try Shell.run("/usr/bin/samba-tool", ["ou", "add", ou, "-s", conf]).status == 0)
        let made = try Shell.run("/usr/bin/samba-tool", ["user", "create", name, password, "--userou=\(ou)", "-s", conf])
        try #require(made.status == 0, "samba-tool: \(made.stderr)")
        // In a role group, so that only where the account lives can refuse it.
        _ = try Shell.run("/usr/bin/samba-tool", ["group", "addmembers", "MI Technicians", name, "-s", conf])
        defer {
            _ = try? Shell.run("/usr/bin/samba-tool", ["user", "delete", name, "-s", conf])
            _ = try? Shell.run("/usr/bin/samba-tool", ["ou", "delete", ou, "-s", conf])
        }
        let got = try Shell.run("/usr/bin/kinit", ["\(name)@\(fixture["REALM"])"], environment: environment, input: password + "\n")
        try #require(got.status == 0, "kinit: \(got.stderr)")
        let result = try miadmin(["--config", kerberosConfig, "-c", "whoami"])
        #expect(result.status == 4, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("no single directory user for the Kerberos principal '\(name)@\(fixture["REALM"])'"),
                "\(result.stderr)")
    }

    @Test func aUserInNoRoleGroupIsRefusedWithATicketToo() throws {
        try kinit("nbody")
        let result = try miadmin(["--config", kerberosConfig, "-c", "whoami"])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("none of the console's role groups"), "\(result.stderr)")
    }

    @Test func theServiceAccountBindsFromItsKeytabWithNoPasswordFile() throws {
        let config = try String(contentsOfFile: keytabConfig, encoding: .utf8)
        try #require(!config.contains("bindPasswordFile") && !config.contains("bindDN"))
        try kinit("mkhan")
        // The listing reads as the service account: every technician, the nested one included.
        let result = try miadmin(["--config", keytabConfig, "--format", "csv", "-c", "users --role technician"])
        #expect(result.status == 0, "\(result.stderr)")
        for uid in ["jdoe", "asmith", "fnested", "tpatel"] { #expect(result.stdout.contains(uid), "\(uid)") }
        #expect(!result.stdout.contains("lchen"))
    }

    @Test func aKeytabWithoutThePrincipalsKeyFailsTheServiceAccount() throws {
        let dir = try TempDir.make()
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: keytabConfig)))
                                  as? [String: Any])
        setKey(&object, "ldap.kerberos.servicePrincipal", "nobody-here@\(fixture["REALM"])")
        let path = dir + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        let result = try miadmin(["--config", path, "--user", "lchen", "-c", "whoami"], password: fixture.password("lchen"))
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot get a Kerberos ticket for nobody-here@EXAMPLE.TEST from the keytab"),
                "\(result.stderr)")
        #expect(!result.stdout.contains("lchen"))
    }

    /// The SASL GSSAPI plug-in (and the Kerberos libraries it brings) is loaded by a Kerberos
    /// bind only: the dynamic loader's own log says which files a run opened.
    @Test func onlyAKerberosBindLoadsTheGSSAPIPlugIn() throws {
        var loaderLog = environment
        loaderLog["LD_DEBUG"] = "files"
        let password = try MIAdmin.run(["--config", fixture.configPath, "--user", "lchen", "-c", "whoami"],
                                       password: fixture.password("lchen"), environment: loaderLog)
        #expect(password.status == 0, "\(password.stderr)")
        #expect(password.stderr.contains("file=libldap"), "the loader log is missing")
        #expect(!password.stderr.contains("sasl2/libgssapiv2"))
        try kinit("lchen")
        let ticket = try MIAdmin.run(["--config", kerberosConfig, "-c", "whoami"], environment: loaderLog)
        #expect(ticket.status == 0, "\(ticket.stderr)")
        #expect(ticket.stderr.contains("sasl2/libgssapiv2"))
    }

    /// whoami's `auth` row on a terminal screen.
    func authLine(_ screen: String) -> String? {
        screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("auth ") }
    }

    @Test func atATerminalNoTicketAsksForThePasswordAndATicketAsksNothing() throws {
        let asked = try TerminalSession(uid: "mkhan", config: kerberosConfig, environment: environment,
                                        askPassword: true, fixture: fixture)
        _ = try asked.waitFor("Password for mkhan:")
        try asked.enter(fixture.password("mkhan"))
        _ = try asked.waitFor("mkhan@foreman>")
        try asked.enter("whoami")
        #expect(authLine(try asked.waitFor("auth ")) == "auth   password")

        try kinit("mkhan")
        let ticket = try TerminalSession(uid: "mkhan", config: kerberosConfig, environment: environment,
                                         askPassword: true, fixture: fixture)
        let screen = try ticket.waitFor("mkhan@foreman>")
        #expect(!screen.contains("Password"), "\(screen)")
        try ticket.enter("whoami")
        #expect(authLine(try ticket.waitFor("auth ")) == "auth   kerberos")
    }
}

