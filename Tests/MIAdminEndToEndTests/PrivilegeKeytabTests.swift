import Foundation
import MITestSupport
import Testing

/// The installed, setgid miadmin and the files its directory libraries read: libldap takes its
/// defaults before the group is given up (when it ignores users' `ldaprc` files), and the
/// service account's keytab is read with the group's rights, its problems named. Against the
/// MIT KDC fixture (Scripts/kdc-fixture); the setgid binary's Kerberos library reads only
/// /etc/krb5.conf, so the keytab tests put the fixture's realm there and the machine's file back.
@Suite(.serialized,
       .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"),
       .enabled(if: Fixture.kerberosUnavailable == nil, "\(Fixture.kerberosUnavailable ?? "")"))
struct PrivilegeKeytabTests {
    let fixture = try! Fixture.kerberos.get()

    /// An installation against the Kerberos fixture; with `keytabMode`, its service account binds
    /// from a copy of the fixture's keytab (root:group, that mode) and /etc/krb5.conf is the
    /// fixture's for the run.
    func withInstallation(keytabMode: mode_t? = nil, _ body: (Installation) throws -> Void) throws {
        guard keytabMode != nil else { return try withKeytabInstallation(keytabMode: nil, body) }
        try MachineKerberosConfig.with(fixture["KRB5_CONFIG_FILE"]) { try withKeytabInstallation(keytabMode: keytabMode, body) }
    }

    private func withKeytabInstallation(keytabMode: mode_t?, _ body: (Installation) throws -> Void) throws {
        let install = try Installation(tag: "ktab", groupOf: nil)
        defer { install.remove() }
        try install.runInstall([])
        let keytab = install.configDir + "/miadmin.keytab"
        try install.writeConfig(fixture: fixture) { object in
            guard keytabMode != nil else { return }
            setKey(&object, "ldap.uri", fixture["LDAP_KERBEROS_URI"])
            setKey(&object, "ldap.bindDN", nil)
            setKey(&object, "ldap.bindPasswordFile", nil)
            setKey(&object, "ldap.kerberos.serviceKeytab", keytab)
            setKey(&object, "ldap.kerberos.servicePrincipal", fixture["SERVICE_PRINCIPAL"])
        }
        if let keytabMode {
            try FileManager.default.copyItem(atPath: fixture["SERVICE_KEYTAB"], toPath: keytab)
            chown(keytab, 0, install.gid)
            chmod(keytab, keytabMode)
        }
        let installed = try install.runInstall([])
        try #require(installed.status == 0, "\(installed.stderr)")
        try body(install)
    }

    /// What the privileged part opens besides docs/security.md's table for every run, when the
    /// service account binds from a keytab (that table's "with ldap.kerberos.serviceKeytab").
    static let keytabFiles = ["/etc/krb5.conf", "/etc/gss/", "/usr/lib/x86_64-linux-gnu/krb5/plugins/"]

    @Test func noLdaprcOfTheUserReachesTheBinds() throws {
        try withInstallation { install in
            // Read, they would change every search and bind (libldap's defaults for the user).
            let home = install.home(.foreman)
            for name in [".ldaprc", "ldaprc"] {
                FileManager.default.createFile(atPath: home + "/" + name, contents: Data("TLS_REQCERT never\nSIZELIMIT 1\n".utf8))
                try install.chown(home + "/" + name, to: .foreman)
            }
            let trace = try TempDir.make() + "/trace"
            let run = try install.traced(.foreman, ["-c", "whoami", "-c", "users --role technician"], output: trace)
            #expect(run.status == 0, "\(run.stderr)")
            let text = try String(contentsOfFile: trace, encoding: .utf8)
            // libldap looks for `ldaprc` in its working folder, `/` at that moment: not found.
            let read = text.split(separator: "\n").filter { $0.contains("open") && $0.contains("ldaprc") && !$0.contains("= -1") }
            #expect(read.isEmpty, "an ldaprc file was read: \(read)")
            // The system's ldap.conf is read, while the group is still held.
            #expect(try PrivilegePostgresTests.privilegedOpens(trace).contains("/etc/ldap/ldap.conf"))
        }
    }

    @Test func theServiceKeytabLogsInAndThePrivilegedPartOpensOnlyWhatIsDocumented() throws {
        try withInstallation(keytabMode: 0o640) { install in
            let trace = try TempDir.make() + "/trace"
            let run = try install.traced(.foreman, ["-c", "whoami", "-c", "users --role technician"], output: trace)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("asmith"), "\(run.stdout)")
            let opened = try PrivilegePostgresTests.privilegedOpens(trace)
            let documented = PrivilegePostgresTests.documentedPrivilegedFiles(prefix: install.prefix)
                + Self.keytabFiles + [install.stateDir + "/"]  // a SQLite store's three files
            let unexpected = opened.filter { path in !documented.contains { path.hasPrefix($0) } }
            #expect(unexpected.isEmpty, "opened while privileged and not in docs/security.md: \(unexpected)")
            let home = install.home(.foreman)
            #expect(!opened.contains { $0.hasPrefix(home) || $0.hasPrefix("/tmp/krb5cc") }, "\(opened)")
        }
    }

    @Test func aKeytabTheGroupCannotReadSaysSoNamingTheGroup() throws {
        try withInstallation(keytabMode: 0o600) { install in
            let run = try install.run(.technician, ["-c", "whoami"])
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("the keytab is not readable by this process (owner root, group \(install.group), mode 600)"),
                    "\(run.stderr)")
            #expect(run.stderr.contains("miadmin reads it with the group \(install.group)"), "\(run.stderr)")
            #expect(!run.stderr.contains("No credentials cache found"), "\(run.stderr)")
        }
    }
}
