import Foundation
import MITestSupport
import Testing

/// On Active Directory (the Samba AD DC fixture), which keeps `müller` (U+00FC) and `mu` +
/// U+0308 + `ller` as two accounts with two passwords: the console refuses either at login and
/// stops a `users` listing that meets them, naming both, instead of giving the second account
/// the first one's forms.
@Suite(.serialized, .enabled(if: Fixture.activeDirectory != nil, "needs the Samba AD DC fixture (MIADMIN_TEST_FIXTURE_AD)"))
struct LookAlikeAccountTests {
    @Test func lookAlikeAccountsOnActiveDirectoryAreRefusedNamingBoth() throws {
        let ad = try #require(Fixture.activeDirectory)
        let suffix = String(UUID().uuidString.prefix(4).lowercased())
        let composed = "m\u{FC}ller\(suffix)", decomposed = "mu\u{308}ller\(suffix)"
        let conf = ad.directory + "/dc/etc/smb.conf"
        for (name, password) in [(composed, "Composed-Pa55"), (decomposed, "Decomposed-Pa55")] {
            let made = try Shell.run("/usr/bin/samba-tool", ["user", "create", name, password, "-s", conf])
            try #require(made.status == 0, "samba-tool: \(made.stderr)")
        }
        let joined = try Shell.run("/usr/bin/samba-tool", ["group", "addmembers", "MI Technicians", "\(composed),\(decomposed)", "-s", conf])
        try #require(joined.status == 0, "samba-tool: \(joined.stderr)")
        defer {
            for name in [composed, decomposed] { _ = try? Shell.run("/usr/bin/samba-tool", ["user", "delete", name, "-s", conf]) }
        }
        for (name, password) in [(composed, "Composed-Pa55"), (decomposed, "Decomposed-Pa55")] {
            let login = try MIAdmin.run(["--config", ad.configPath, "--user", name, "-c", "whoami"], password: password)
            #expect(login.status == 4, "\(name): \(login.stdout) \(login.stderr)")
            #expect(login.stderr.contains("'m\\u{fc}ller\(suffix)'") && login.stderr.contains("'mu\\u{308}ller\(suffix)'")
                    && login.stderr.contains("Unicode normalization"), "\(login.stderr)")
        }
        let users = try MIAdmin.as_("mkhan", config: ad.configPath, ["users"], fixture: ad)
        #expect(users.status != 0, "\(users.stdout)")
        #expect(users.stderr.contains("'mu\\u{308}ller\(suffix)' and 'm\\u{fc}ller\(suffix)'"), "\(users.stderr)")
    }
}
