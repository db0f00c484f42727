import Foundation
import MITestSupport
import Testing

/// A foreman's prompt stays open while the directory moves a technician out of his crew: within
/// `teams.refreshSeconds` the session reads its crews again, says so once, and the technician's
/// forms are out of reach (the built binary, a real slapd, a real SQLite store).
@Suite(.tags(.endToEnd, .ldap)) struct CrewRefreshTests {
    let fixture = CrewDirectory.fixture

    /// Runs `ldif` through ldapmodify as the directory's root (`-a`: adds entries).
    func modify(_ ldif: String, add: Bool = false) throws {
        let result = try Shell.run("/usr/bin/ldapmodify", (add ? ["-a"] : []) + ["-x", "-ZZ", "-H", fixture["LDAP_URI"],
                                                                                  "-D", fixture["ROOT_DN"], "-y", fixture["ROOT_PW_FILE"]],
                                   environment: ["LDAPTLS_CACERT": fixture["CA_FILE"], "LDAPTLS_REQCERT": "demand"], input: ldif)
        #expect(result.status == 0, "ldapmodify: \(result.stderr)")
    }

    @Test func aTechnicianTakenOutOfTheCrewLeavesAnOpenSession() throws {
        // A crew of its own, under a base of its own, so that no other test's crews change.
        let tag = UUID().uuidString.prefix(8).lowercased()
        let base = "ou=Kolonnen-\(tag),\(fixture["LDAP_BASE"])"
        let crew = "Kolonne \(tag)"
        let group = "cn=\(crew),\(base)"
        func dn(_ uid: String) -> String { "uid=\(uid),ou=people,\(fixture["LDAP_BASE"])" }
        try modify("""
            dn: \(base)
            objectClass: organizationalUnit
            ou: Kolonnen-\(tag)

            dn: \(group)
            objectClass: groupOfNames
            cn: \(crew)
            member: \(dn("obauer"))
            member: \(dn("u00010"))
            member: \(dn("u00011"))

            """, add: true)
        let config = try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", base)
            setKey(&object, "teams.refreshSeconds", 1)
        }
        let tree = try DocumentsTree()
        try tree.form("u00010", "Pump")
        try tree.form("u00011", "Valve")
        let imported = try MIAdmin.as_("lchen", config: config, ["import --yes " + shellQuote(tree.root)], fixture: fixture)
        #expect(imported.status == 0, "\(imported.stderr)")

        let prompt = "obauer@foreman> "
        let term = try TerminalSession(uid: "obauer", config: config, fixture: fixture)
        try term.waitFor(prompt)
        try term.enter("whoami")
        try term.waitFor(crew)
        try modify("""
            dn: \(group)
            changetype: modify
            delete: member
            member: \(dn("u00010"))

            """)
        usleep(1_200_000)  // past teams.refreshSeconds
        try term.enter("move 'u00010/Pump' u00011")
        let screen = try term.waitFor("is not in your crews")
        #expect(screen.contains("crews changed: u00010 left \(crew)"), "\(screen)")
        #expect(screen.contains("u00010 is not in your crews (\(crew))"), "\(screen)")
        #expect(try sqlite(fixture.storePath(config), "SELECT owner FROM forms WHERE name = 'Pump'") == "u00010")
        // Said once: the next command says nothing of it.
        try term.enter("refresh")
        let again = try term.waitFor("crews unchanged")
        #expect(again.components(separatedBy: "crews changed").count - 1 == 1, "\(again)")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }

    /// Tab offers the crews the session reads now: a crew the foreman was given while his
    /// prompt stayed open completes after `refresh` (it was read once, on the first Tab, before).
    @Test func tabOffersACrewGivenWhileThePromptStaysOpen() throws {
        let tag = UUID().uuidString.prefix(8).lowercased()
        let base = "ou=Kolonnen-\(tag),\(fixture["LDAP_BASE"])"
        func dn(_ uid: String) -> String { "uid=\(uid),ou=people,\(fixture["LDAP_BASE"])" }
        func crew(_ name: String) -> String {
            """
            dn: cn=\(name),\(base)
            objectClass: groupOfNames
            cn: \(name)
            member: \(dn("obauer"))
            member: \(dn("u00010"))

            """
        }
        try modify("""
            dn: \(base)
            objectClass: organizationalUnit
            ou: Kolonnen-\(tag)


            """ + crew("K\(tag)a"), add: true)
        let config = try fixture.config { object in
            setKey(&object, "teams.source", "groups")
            setKey(&object, "teams.base", base)
            setKey(&object, "teams.refreshSeconds", 3600)
        }
        let prompt = "obauer@foreman> "
        let term = try TerminalSession(uid: "obauer", config: config, fixture: fixture)
        try term.waitFor(prompt)
        try term.type("forms --team K\(tag)")
        try term.press("Tab")
        // One crew: completed whole.
        #expect(try term.currentLine(prompt: prompt, becomes: "forms --team K\(tag)a ") == "forms --team K\(tag)a ")
        try term.press("C-u")
        try modify(crew("K\(tag)b"), add: true)
        try term.enter("refresh")
        try term.waitFor("crews changed")
        try term.type("forms --team K\(tag)")
        try term.press("Tab", "Tab")
        // Two crews share the prefix: nothing more to fill in (the line stays as typed, where the
        // crews read before the refresh completed it to the one), and the second Tab lists both
        // below the refresh's own line naming the new crew.
        func listed(_ screen: String) -> String { screen.components(separatedBy: "crews changed").last ?? "" }
        let end = Date().addingTimeInterval(10)
        var screen = try term.screen()
        while Date() < end, listed(screen).components(separatedBy: "K\(tag)b").count < 3 {
            usleep(100_000)
            screen = try term.screen()
        }
        #expect(listed(screen).components(separatedBy: "K\(tag)b").count == 3, "\(screen)")
        #expect(listed(screen).contains("K\(tag)a"), "\(screen)")
        #expect(try term.currentLine(prompt: prompt) == "forms --team K\(tag)", "\(screen)")
        try term.press("C-u")
        try term.press("C-d")
        try term.waitFor("[exited 0]")
    }
}
