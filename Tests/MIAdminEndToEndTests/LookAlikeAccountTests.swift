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

/// On OpenLDAP (the shared fixture), the installed way: a foreman's `move` to an id that looks
/// like another account's (Cyrillic о for Latin o, two real entries under the user base) is
/// refused naming both ids, and the form stays with its owner.
@Suite(.tags(.endToEnd, .ldap)) struct LookAlikeMoveTargetTests {
    let fixture = Fixture.shared

    @Test func aMoveToALookAlikeIdIsRefusedNamingBoth() throws {
        let suffix = String(UUID().uuidString.prefix(6).lowercased())
        let latin = "tolga\(suffix)", cyrillic = "t\u{43E}lga\(suffix)"
        let base = fixture["LDAP_BASE"], ou = "lookalike-move-\(suffix)"
        var ldif = "dn: ou=\(ou),\(base)\nobjectClass: organizationalUnit\nou: \(ou)\n\n"
        for (cn, uid) in [("Tolga Latin", latin), ("Tolga Cyrillic", cyrillic)] {
            ldif += "dn: cn=\(cn),ou=\(ou),\(base)\nobjectClass: inetOrgPerson\ncn: \(cn)\nsn: Tolga\nuid: \(uid)\n\n"
        }
        ldif += "dn: cn=technicians,ou=groups,\(base)\nchangetype: modify\nadd: member\n"
            + "member: cn=Tolga Latin,ou=\(ou),\(base)\nmember: cn=Tolga Cyrillic,ou=\(ou),\(base)\n\n"
        try fixture.addEntries(ldif)
        // The whole tree is the user base, so both entries are users (the shared fixture's
        // ou=people is left alone: other tests list it).
        let config = try fixture.config { setKey(&$0, "ldap.userBase", base) }
        let imported = try MIAdmin.as_("mkhan", config: config, ["import --yes " + shellQuote(try Paths.copyOfSampleTree())])
        try #require(imported.status == 0, "\(imported.stderr)")
        let moved = try MIAdmin.as_("mkhan", config: config, ["move 'jdoe/Pump station 4' \(shellQuote(cyrillic))"])
        #expect(moved.status != 0, "\(moved.stdout)")
        #expect(moved.stderr.contains("'\(latin)'") && moved.stderr.contains("'t\\u{43e}lga\(suffix)'")
                && moved.stderr.contains("rename one"), "\(moved.stderr)")
        let owner = try sqlite(try fixture.storePath(config), "SELECT owner FROM forms WHERE name = 'Pump station 4' AND owner = 'jdoe'")
        #expect(owner == "jdoe", "the form stayed with jdoe")
    }
}
