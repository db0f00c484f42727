import Foundation
import MITestSupport
import Testing

/// Single sign-on without Active Directory: an MIT KDC serving MI.TEST (the directory's realm)
/// and OTHER.TEST (which MI.TEST trusts), OpenLDAP mapping MI.TEST principals to users with
/// authz-regexp (Scripts/kdc-fixture). The user is whom the directory authenticated: a principal
/// of the trusted realm whose name part is a user id is not that user. Each test has a
/// credential cache of its own (KRB5CCNAME) and the fixture's krb5.conf (KRB5_CONFIG).
@Suite(.enabled(if: Fixture.kerberosUnavailable == nil, "\(Fixture.kerberosUnavailable ?? "")"))
struct KerberosRealmTests {
    let fixture = try! Fixture.kerberos.get()
    let cache: String

    init() throws {
        cache = try TempDir.make() + "/krb5cc"
    }

    func environment(krb5Config: String? = nil) -> [String: String] {
        ["KRB5_CONFIG": krb5Config ?? fixture["KRB5_CONFIG_FILE"], "KRB5CCNAME": "FILE:" + cache]
    }

    /// `kinit` as `principal` (name@REALM) with its password from the fixture.
    func kinit(_ principal: String) throws {
        let result = try Shell.run("/usr/bin/kinit", [principal], environment: environment(),
                                   input: try fixture.principalPassword(principal) + "\n")
        try #require(result.status == 0, "kinit \(principal): \(result.stderr)")
    }

    func whoami(config: String? = nil, krb5Config: String? = nil) throws -> ProcessResult {
        try MIAdmin.run(["--config", config ?? fixture["MIADMIN_CONFIG_KERBEROS"], "--format", "json", "-c", "whoami"],
                        environment: environment(krb5Config: krb5Config))
    }

    /// A copy of the Kerberos config with `edit` applied.
    func config(_ edit: (inout [String: Any]) -> Void) throws -> String {
        let path = fixture["MIADMIN_CONFIG_KERBEROS"]
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                                  as? [String: Any])
        edit(&object)
        let copy = try TempDir.make() + "/miadmin.json"
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: copy))
        return copy
    }

    @Test func aHomeRealmPrincipalLogsInAsItsUser() throws {
        try kinit("mkhan@MI.TEST")
        let result = try whoami()
        #expect(result.status == 0, "\(result.stderr)")
        let me = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(me["uid"] as? String == "mkhan")
        #expect(me["roles"] as? [String] == ["foreman"])
        #expect(me["auth"] as? String == "kerberos")
    }

    @Test func aPrincipalOfATrustedRealmIsRefusedNamingTheRealm() throws {
        // Another person, whose name part is the foreman's user id.
        try kinit("mkhan@OTHER.TEST")
        let result = try whoami()
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains("'mkhan@OTHER.TEST' is of the realm OTHER.TEST"), "\(result.stderr)")
        #expect(result.stderr.contains("MI.TEST"), "\(result.stderr)")
    }

    @Test func aListedRealmStillLogsInOnlyWhomTheDirectoryMaps() throws {
        // ldap.kerberos.realms lets OTHER.TEST's principals try; the directory maps none of them
        // to a user (its authz-regexp covers MI.TEST), so mkhan@OTHER.TEST is still no one here.
        let both = try config { setKey(&$0, "ldap.kerberos.realms", ["MI.TEST", "OTHER.TEST"]) }
        try kinit("mkhan@OTHER.TEST")
        let result = try whoami(config: both)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains("the directory authenticated the Kerberos principal 'mkhan@OTHER.TEST' as "
                                       + "'uid=mkhan@other.test,cn=mi.test,cn=gssapi,cn=auth', which is no user"),
                "\(result.stderr)")
        // A list without the directory's realm refuses its principals.
        let otherOnly = try config { setKey(&$0, "ldap.kerberos.realms", ["OTHER.TEST"]) }
        try kinit("mkhan@MI.TEST")
        let refused = try whoami(config: otherOnly)
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(refused.stderr.contains("is of the realm MI.TEST, not of the directory's (OTHER.TEST, from ldap.kerberos.realms)"),
                "\(refused.stderr)")
    }

    @Test func aPrincipalTheDirectoryDoesNotMapIsRefused() throws {
        try kinit("ghost@MI.TEST")
        let result = try whoami()
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("'ghost@MI.TEST' as 'uid=ghost,cn=mi.test,cn=gssapi,cn=auth', which is no user under "
                                       + "ou=people,dc=example,dc=com"), "\(result.stderr)")
    }

    @Test func theServiceAccountBindsFromItsKeytab() throws {
        try kinit("mkhan@MI.TEST")
        let result = try MIAdmin.run(["--config", fixture["MIADMIN_CONFIG_KEYTAB"], "--format", "csv",
                                      "-c", "whoami", "-c", "users --role technician"], environment: environment())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("mkhan"))
        #expect(result.stdout.contains("jdoe"))
        #expect(result.stdout.contains("asmith"))
    }

    /// The fixture's krb5.conf with both realms' KDCs on a port nothing listens on.
    func unreachableKDCConfig() throws -> String {
        var text = try String(contentsOfFile: fixture["KRB5_CONFIG_FILE"], encoding: .utf8)
        let port = Int(fixture["KDC_PORT"])!
        for used in [port, port + 1] { text = text.replacingOccurrences(of: "127.0.0.1:\(used)", with: "127.0.0.1:9") }
        let path = try TempDir.make() + "/krb5.conf"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aKDCThatCannotBeReachedIsExitTwo() throws {
        // A valid ticket-granting ticket; the service ticket for the directory needs the KDC.
        try kinit("mkhan@MI.TEST")
        let result = try whoami(krb5Config: try unreachableKDCConfig())
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("no KDC could be reached"), "\(result.stderr)")
        #expect(!result.stderr.contains("run kinit"), "\(result.stderr)")
    }

    @Test func aKDCThatCannotBeReachedForTheKeytabIsExitTwo() throws {
        try kinit("mkhan@MI.TEST")
        let result = try whoami(config: fixture["MIADMIN_CONFIG_KEYTAB"], krb5Config: try unreachableKDCConfig())
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("no Kerberos KDC could be reached"), "\(result.stderr)")
    }

    @Test func aKeytabWithoutTheServicePrincipalSaysSo() throws {
        let config = try config { object in
            setKey(&object, "ldap.bindDN", nil)
            setKey(&object, "ldap.bindPasswordFile", nil)
            setKey(&object, "ldap.kerberos.serviceKeytab", fixture["SERVICE_KEYTAB"])
            setKey(&object, "ldap.kerberos.servicePrincipal", "nobody-svc@MI.TEST")
        }
        try kinit("mkhan@MI.TEST")
        let result = try whoami(config: config)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("the keytab holds no key for nobody-svc@MI.TEST"), "\(result.stderr)")
        #expect(!result.stderr.contains("No credentials cache found"), "\(result.stderr)")
    }
}
