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
    private func lookAlikeBase(_ first: (uid: String, password: String) = ("m\u{FC}ller", "composed-Pa55"),
                               _ second: (uid: String, password: String) = ("mu\u{308}ller", "decomposed-Pa55")) throws -> String {
        let base = "ou=lookalike-\(UUID().uuidString.prefix(8).lowercased()),\(fixture["LDAP_BASE"])"
        let ldif = """
            dn: \(base)
            objectClass: organizationalUnit
            ou: \(base.split(separator: ",")[0].dropFirst(3))

            dn: cn=First Account,\(base)
            objectClass: inetOrgPerson
            cn: First Account
            sn: First
            uid: \(first.uid)
            userPassword: \(first.password)

            dn: cn=Second Account,\(base)
            objectClass: inetOrgPerson
            cn: Second Account
            sn: Second
            uid: \(second.uid)
            userPassword: \(second.password)

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
            // As a move's target: the pair is named, not "no user" (the look-up of one user).
            #expect { try directory(userBase: base).user(uid: uid) } throws: { error in
                (error as? DirectoryError)?.message.contains("('mu\\u{308}ller' and 'm\\u{fc}ller')") == true
            }
        }
    }

    /// In the directory's order (the order the entries were added) and the reverse: an id that
    /// is its own skeleton listed first is found by asking the directory; after, by the ids kept.
    @Test func aListingThatMeetsLookAlikeAccountsIsRefusedNamingBoth() throws {
        let composed = ("m\u{FC}ller", "composed-Pa55"), decomposed = ("mu\u{308}ller", "decomposed-Pa55")
        for base in [try lookAlikeBase(composed, decomposed), try lookAlikeBase(decomposed, composed)] {
            #expect { try directory(userBase: base).forEachUser(matching: nil, role: nil) { _ in } } throws: { error in
                (error as? DirectoryError)?.message.contains("('mu\\u{308}ller' and 'm\\u{fc}ller')") == true
            }
        }
    }

    @Test func lookAlikesAreToldApartByScalarsNotBySwiftEquality() {
        #expect(LookAlikeIds.find(in: ["m\u{FC}ller", "jdoe", "mu\u{308}ller"])?.ids == ["mu\u{308}ller", "m\u{FC}ller"])
        #expect(LookAlikeIds.find(in: ["m\u{FC}ller", "m\u{FC}ller", "jdoe"]) == nil)
        #expect(LookAlikeIds.find(in: ["jdoe", "jd\u{43E}e"])?.ids == ["jdoe", "jd\u{43E}e"])
        #expect(LookAlikeIds.find(in: ["jdoe", "JDOE", "jdoe2"]) == nil, "case is the directory's own affair")
        let spellings = LookAlikeIds.spellings(of: "m\u{FC}ller")
        #expect(spellings.contains("m\u{FC}ller") && spellings.contains("mu\u{308}ller"))
        #expect(LookAlikeIds.spellings(of: "jdoe").contains("jd\u{43E}e"), "a look-up meets the Cyrillic look-alike")
        #expect(LookAlikeIds.spellings(of: "jd\u{43E}e").contains("jdoe"), "and the Latin one from the Cyrillic")
    }

    /// `jdoe` and `jdоe` (Cyrillic о): refused at either's login, as a move target (the
    /// look-up of one user) and in a listing, naming both.
    @Test func idsThatDifferInALetterOfAnotherScriptAreRefusedNamingBoth() throws {
        let cyrillic = "jd\u{43E}e"
        let base = try lookAlikeBase(("jdoe", "latin-Pa55"), (cyrillic, "cyrillic-Pa55"))
        let namesBoth = { (error: any Error) -> Bool in
            guard let error = error as? DirectoryError else { return false }
            return error.message.contains("('jdoe' and 'jd\\u{43e}e')") && error.message.contains("rename one")
        }
        for (uid, password) in [("jdoe", "latin-Pa55"), (cyrillic, "cyrillic-Pa55")] {
            #expect(performing: { try directory(userBase: base).authenticate(uid: uid, password: Array(password.utf8)) },
                    throws: namesBoth)
            #expect(performing: { try directory(userBase: base).user(uid: uid) }, throws: namesBoth)
        }
        #expect(performing: { try directory(userBase: base).forEachUser(matching: nil, role: nil) { _ in } }, throws: namesBoth)
    }

    /// The listing's streamed check finds the pair whichever comes first, an ASCII id included
    /// (U+212A KELVIN SIGN normalizes to ASCII K), two ids beyond their own skeleton included,
    /// and lets the same id twice and plain ids pass; the directory it asks is the listing.
    @Test func theListingsStreamedCheckFindsEveryPairInEitherOrder() {
        let pairs = [("m\u{FC}ller", "mu\u{308}ller"), ("Kelvin", "\u{212A}elvin"), ("o\u{308}", "\u{F6}"),
                     ("jd\u{43E}e", "jdo\u{435}")]
        for (a, b) in pairs {
            for (first, second) in [(a, b), (b, a)] {
                #expect(check(["jdoe", first, "asmith", second]) == LookAlikeIds.find(in: [first, second]), "\(first) then \(second)")
            }
        }
        #expect(check(["jdoe", "jdoe", "m\u{FC}ller", "m\u{FC}ller", "mu\u{308}ller2", "mu\u{308}ller2", "u00001"]
                      + (1...1000).map { "t\($0)" }) == nil)
    }

    /// What the check keeps: nothing for ids that are their own skeleton (printable ASCII,
    /// composed letters), one skeleton for each id beyond it.
    @Test func theListingsStreamedCheckKeepsOnlyIdsBeyondTheirOwnSkeleton() {
        var watch = LookAlikeWatch()
        for id in (1...10_000).map({ "u\($0)" }) + ["m\u{FC}ller", "zangstr\u{F6}m"] { _ = watch.add(id) }
        #expect(watch.skeletonsWaiting == 0)
        _ = watch.add("mu\u{308}ller")
        _ = watch.add("jd\u{43E}e")
        #expect(watch.takeSkeletonsToAsk() == ["m\u{FC}ller", "jdoe"])
        #expect(watch.skeletonsWaiting == 0)
    }

    /// Runs the check over `listing` as ``Directory/forEachUser(matching:role:_:)`` does, then
    /// asks for the kept skeletons a directory that matches ids without case (as slapd does for
    /// `uid`) and holds exactly the listed ids.
    private func check(_ listing: [String]) -> LookAlikeIds? {
        var watch = LookAlikeWatch()
        for id in listing {
            if let pair = watch.add(id) { return pair }
        }
        let asked = watch.takeSkeletonsToAsk()
        return watch.lookAlike(amongFound: listing.filter { id in asked.contains { $0.lowercased() == id.lowercased() } })
    }
}
