import Foundation
import Logging
import MITestSupport
import Testing
@testable import MIDirectory

/// Two directory accounts whose ids differ only in Unicode normalization (`müller` with U+00FC,
/// `mu` + U+0308 + `ller`) would be one owner in the store: refused at login and in listings,
/// naming both, never merged. Against the real slapd fixture, in an OU of the test's own.
@Suite(.tags(.ldap), .needsLDAP) struct LookAlikeIdTests {
    let fixture = Fixture.shared

    /// A new OU holding the two look-alike accounts (each with its own password), as root.
    private func lookAlikeBase() throws -> String {
        let base = "ou=lookalike-\(UUID().uuidString.prefix(8).lowercased()),\(fixture["LDAP_BASE"])"
        let ldif = """
            dn: \(base)
            objectClass: organizationalUnit
            ou: \(base.split(separator: ",")[0].dropFirst(3))

            dn: cn=Mueller Composed,\(base)
            objectClass: inetOrgPerson
            cn: Mueller Composed
            sn: Mueller
            uid: m\u{FC}ller
            userPassword: composed-Pa55

            dn: cn=Mueller Decomposed,\(base)
            objectClass: inetOrgPerson
            cn: Mueller Decomposed
            sn: Mueller
            uid: mu\u{308}ller
            userPassword: decomposed-Pa55

            """
        let file = try TempDir.make() + "/lookalike.ldif"
        try ldif.write(toFile: file, atomically: true, encoding: .utf8)
        let added = try Shell.run("/usr/bin/ldapadd", ["-x", "-H", fixture["LDAP_URI"], "-ZZ", "-D", fixture["ROOT_DN"],
                                                        "-y", fixture["ROOT_PW_FILE"], "-f", file],
                                  environment: ["LDAPTLS_CACERT": fixture["CA_FILE"]])
        try #require(added.status == 0, "ldapadd: \(added.stderr)")
        return base
    }

    private func directory(userBase: String) throws -> Directory {
        let base = fixture["LDAP_BASE"]
        let password = Array(try String(contentsOfFile: fixture["BIND_PW_FILE"], encoding: .utf8).utf8)
        return Directory(settings: DirectorySettings(
            connection: ConnectionSettings(uri: fixture["LDAP_URI"], startTLS: true, caFile: fixture["CA_FILE"], timeoutSeconds: 5),
            baseDN: base, userBase: userBase, bindDN: fixture["BIND_DN"], bindPassword: password,
            groups: [.foreman: "cn=foremen,ou=groups,\(base)", .technician: "cn=technicians,ou=groups,\(base)",
                     .support: "cn=support,ou=groups,\(base)"]), logger: Logger(label: "test"))
    }

    @Test func eitherLookAlikeAccountIsRefusedAtLoginNamingBoth() throws {
        let base = try lookAlikeBase()
        for (uid, password) in [("m\u{FC}ller", "composed-Pa55"), ("mu\u{308}ller", "decomposed-Pa55")] {
            #expect { try directory(userBase: base).authenticate(uid: uid, password: Array(password.utf8)) } throws: { error in
                guard let error = error as? DirectoryError else { return false }
                return error.message.contains("'m\\u{fc}ller'") && error.message.contains("'mu\\u{308}ller'")
                    && error.message.contains("Unicode normalization")
            }
        }
    }

    @Test func aListingThatMeetsLookAlikeAccountsIsRefusedNamingBoth() throws {
        let base = try lookAlikeBase()
        #expect { try directory(userBase: base).forEachUser(matching: nil, role: nil) { _ in } } throws: { error in
            (error as? DirectoryError)?.message.contains("('mu\\u{308}ller' and 'm\\u{fc}ller')") == true
        }
    }

    @Test func lookAlikesAreToldApartByScalarsNotBySwiftEquality() {
        #expect(LookAlikeIds.find(in: ["m\u{FC}ller", "jdoe", "mu\u{308}ller"])?.ids == ["mu\u{308}ller", "m\u{FC}ller"])
        #expect(LookAlikeIds.find(in: ["m\u{FC}ller", "m\u{FC}ller", "jdoe"]) == nil)
        #expect(LookAlikeIds.spellings(of: "m\u{FC}ller").count == 2)
        #expect(LookAlikeIds.spellings(of: "jdoe") == ["jdoe"])
    }

    /// The listing's streamed check finds the pair whichever comes first, an ASCII id included
    /// (U+212A KELVIN SIGN normalizes to ASCII K), and lets the same id twice and plain ids pass.
    @Test func theListingsStreamedCheckFindsEveryPairInEitherOrder() {
        let pairs = [("m\u{FC}ller", "mu\u{308}ller"), ("Kelvin", "\u{212A}elvin"), ("o\u{308}", "\u{F6}")]
        for (a, b) in pairs {
            for (first, second) in [(a, b), (b, a)] {
                var watch = LookAlikeWatch()
                #expect(watch.add("jdoe") == nil)
                #expect(watch.add(first) == nil)
                #expect(watch.add("asmith") == nil)
                #expect(watch.add(second) == LookAlikeIds.find(in: [first, second]), "\(first) then \(second)")
            }
        }
        var watch = LookAlikeWatch()
        for id in ["jdoe", "jdoe", "m\u{FC}ller", "m\u{FC}ller", "u00001"] + (1...1000).map({ "t\($0)" }) {
            #expect(watch.add(id) == nil, "\(id)")
        }
    }
}
