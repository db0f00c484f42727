import Foundation
import MITestSupport
import Testing

/// The installed, setgid miadmin with ticket logins, against real Unix accounts and the Samba AD
/// DC's KDC: it uses the invoking account's own credential cache and nothing else. The setgid
/// binary's Kerberos library reads only /etc/krb5.conf (no KRB5_CONFIG), so this suite puts the
/// fixture's realm there for its run and puts the machine's file back afterwards.
@Suite(.serialized,
       .enabled(if: getuid() == 0, "needs root: creates Unix accounts, a group and a setgid binary"),
       .enabled(if: Fixture.activeDirectory != nil, "needs Scripts/ad-fixture (Scripts/test starts it)"))
struct PrivilegeKerberosTests {
    let fixture = Fixture.activeDirectory!

    /// Runs `body` with an installation whose system config logs in with tickets, the fixture's
    /// krb5.conf as /etc/krb5.conf, and no credential caches of the accounts left afterwards.
    func withInstallation(_ body: (Installation) throws -> Void) throws {
        try MachineKerberosConfig.with(fixture["KRB5_CONFIG_FILE"]) { try withTicketInstallation(body) }
    }

    private func withTicketInstallation(_ body: (Installation) throws -> Void) throws {
        let install = try Installation(tag: "krb", groupOf: nil)
        defer {
            for account in Account.allCases {
                if let uid = try? install.uid(account) { unlink("/tmp/krb5cc_\(uid)") }
            }
            install.remove()
        }
        try install.runInstall([])
        try install.writeConfig(fixture: fixture) { object in
            setKey(&object, "ldap.uri", fixture["KERBEROS_URI"])
            setKey(&object, "ldap.kerberos.login", true)
        }
        let installed = try install.runInstall([])
        try #require(installed.status == 0, "\(installed.stderr)")
        try body(install)
    }

    /// `kinit` as `account` for the directory user `uid`, into the account's default cache.
    func kinit(_ install: Installation, _ account: Account, as uid: String) throws {
        let result = try install.runAs(account, ["/bin/sh", "-c", "printf '%s\\n' \"$PW\" | /usr/bin/kinit \"$PRINCIPAL\""],
                                       environment: ["PW": fixture.password(uid), "PRINCIPAL": "\(uid)@\(fixture["REALM"])"])
        try #require(result.status == 0, "kinit: \(result.stderr)")
    }

    @Test func theInstalledBinaryUsesOnlyTheInvokingUsersOwnCache() throws {
        try withInstallation { install in
            // The foreman's account holds mkhan's ticket and logs in with it, no password.
            try kinit(install, .foreman, as: "mkhan")
            let mine = try install.runAs(.foreman, [install.binary, "--format", "json", "-c", "whoami"])
            #expect(mine.status == 0, "\(mine.stderr)")
            #expect(mine.stdout.contains("\"auth\":\"kerberos\"") || mine.stdout.contains("\"auth\" : \"kerberos\""),
                    "\(mine.stdout)")
            #expect(mine.stdout.contains("mkhan"))

            // Even a cache others can read is not another account's to use.
            let foremanCache = "/tmp/krb5cc_\(try install.uid(.foreman))"
            chmod(foremanCache, 0o644)
            let technicianCache = "/tmp/krb5cc_\(try install.uid(.technician))"
            // Through KRB5CCNAME (removed from a setgid run, and ignored by its Kerberos library):
            let named = try install.runAs(.technician, [install.binary, "-c", "whoami"],
                                          environment: ["KRB5CCNAME": "FILE:" + foremanCache])
            #expect(named.status == 4, "\(named.stderr)")
            #expect(named.stderr.contains("no valid Kerberos ticket found"), "\(named.stderr)")
            #expect(!named.stdout.contains("mkhan"))
            // Through a link in the place of the technician's own default cache:
            let link = try install.runAs(.technician, ["/bin/ln", "-s", foremanCache, technicianCache])
            try #require(link.status == 0, "\(link.stderr)")
            let linked = try install.runAs(.technician, [install.binary, "-c", "whoami"])
            #expect(linked.status == 4, "\(linked.stderr)")
            #expect(linked.stderr.contains("is a symbolic link"), "\(linked.stderr)")
            #expect(!linked.stdout.contains("mkhan"))
            // A copy the technician owns is their own cache: that is theirs to use (they could
            // read it, so they hold the ticket anyway); the point above is the installed binary
            // adds no reach of its own.
        }
    }
}
