import Foundation
import MICommands
import MIDirectory
import Testing

/// `ldap.kerberos` in the config: what it may hold, and what it changes about the service
/// account's keys.
@Suite("Kerberos config")
struct KerberosConfigTests {
    func parse(_ kerberos: String, service: String = "") throws -> AppConfig {
        let json = CommandHarness.configJSON.replacingOccurrences(
            of: #""userBase": "ou=people,dc=example,dc=com","#,
            with: #""userBase": "ou=people,dc=example,dc=com", "kerberos": \#(kerberos),\#(service)"#)
        return try AppConfig.parse(Data(json.utf8), path: "/etc/miadmin/config.json")
    }

    func refusal(_ kerberos: String, service: String = "") -> String {
        do {
            _ = try parse(kerberos, service: service)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func absentOrAskingNothingChangesNothing() throws {
        #expect(try AppConfig.parse(Data(CommandHarness.configJSON.utf8), path: "/c.json").ldap.kerberos == nil)
        #expect(try parse(#"{"login": false}"#).ldap.kerberos == nil)
    }

    @Test func loginAndAKeytabWithItsPrincipal() throws {
        #expect(try parse(#"{"login": true}"#).ldap.kerberos == KerberosSettings(login: true))
        let keytab = try parse(#"{"serviceKeytab": "miadmin.keytab", "servicePrincipal": "svc-miadmin@EXAMPLE.COM"}"#,
                               service: #" "bindDN": "cn=svc,dc=example,dc=com","#)
        // Relative to the config's folder, like every path in it; the DN needs no password file.
        #expect(keytab.ldap.kerberos == KerberosSettings(login: false, serviceKeytab: "/etc/miadmin/miadmin.keytab",
                                                         servicePrincipal: "svc-miadmin@EXAMPLE.COM"))
    }

    @Test func realmsWhosePrincipalsMayLogIn() throws {
        #expect(try parse(#"{"login": true}"#).ldap.kerberos?.realms == [])
        #expect(try parse(#"{"login": true, "realms": ["EXAMPLE.COM", "CORP.EXAMPLE.COM"]}"#).ldap.kerberos?.realms
                == ["EXAMPLE.COM", "CORP.EXAMPLE.COM"])
        #expect(refusal(#"{"login": true, "realms": "EXAMPLE.COM"}"#).contains("key ldap.kerberos.realms must be a list of strings"))
        #expect(refusal(#"{"login": true, "realms": ["EXAMPLE.COM", 3]}"#).contains("must be a list of strings"))
        #expect(refusal(#"{"login": true, "realms": ["mkhan@EXAMPLE.COM"]}"#).contains("must list realm names"))
        #expect(refusal(#"{"login": true, "realms": [""]}"#).contains("must list realm names"))
    }

    @Test func badValuesSayWhichKeyAndWhy() {
        #expect(refusal(#"{"serviceKeytab": "k.keytab"}"#).contains("ldap.kerberos.servicePrincipal"))
        #expect(refusal(#"{"servicePrincipal": "svc@EXAMPLE.COM"}"#).contains("ldap.kerberos.serviceKeytab is required"))
        #expect(refusal(#"{"serviceKeytab": "k.keytab", "servicePrincipal": "svc"}"#).contains("must be a principal name@REALM"))
        #expect(refusal(#"{"serviceKeytab": "k.keytab", "servicePrincipal": "svc @EXAMPLE.COM"}"#).contains("name@REALM"))
        #expect(refusal(#"{"login": "yes"}"#).contains("key ldap.kerberos.login must be true or false"))
        #expect(refusal(#"{"login": true, "logon": true}"#).contains("unknown key ldap.kerberos.logon"))
        #expect(refusal(#"{"serviceKeytab": "k.keytab", "servicePrincipal": "svc@EXAMPLE.COM"}"#,
                        service: #" "bindDN": "cn=svc", "bindPasswordFile": "svc.pw","#)
            .contains("binds either from its keytab or with its password"))
        #expect(refusal(#"{"login": true}"#, service: #" "bindDN": "cn=svc","#)
            .contains("ldap.bindPasswordFile is required (or ldap.kerberos.serviceKeytab)"))
    }

    @Test func aKeytabOthersCanReadIsRefusedForTheInstalledBinary() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kerberos-config-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let keytab = dir + "/miadmin.keytab"
        FileManager.default.createFile(atPath: keytab, contents: Data([5, 2]), attributes: [.posixPermissions: 0o644])
        let config = try parse(#"{"serviceKeytab": "\#(keytab)", "servicePrincipal": "svc@EXAMPLE.COM"}"#)
        do {
            _ = try config.directorySettings(privileged: true)
            Issue.record("a keytab others can read was accepted")
        } catch {
            #expect("\(error)".contains("is readable by other users (mode 644)"), "\(error)")
            #expect("\(error)".contains("chmod 640"))
        }
        // An unprivileged run warns, then tries the keytab (this one holds no key).
        var warnings: [String] = []
        #expect(throws: ConfigError.self) { try config.directorySettings(privileged: false) { warnings.append($0) } }
        #expect(warnings.first?.contains("readable by other users (mode 644)") == true, "\(warnings)")
    }
}
