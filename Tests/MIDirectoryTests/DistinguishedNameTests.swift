import Testing
@testable import MIDirectory

@Suite struct DistinguishedNameTests {
    @Test(arguments: [
        "uid=jdoe,ou=people,dc=example,dc=com",
        "UID=JDoe,OU=People,DC=Example,DC=com",
        "cn=Bulk User 00001,ou=people,dc=example,dc=com",
        "cn=a-b.c_d,dc=example,dc=com",
    ])
    func fastPathAgreesWithLibldap(_ dn: String) throws {
        let fast = try #require(DistinguishedName.lowercasedIfSimple(dn.utf8))
        #expect(fast == DistinguishedName.normalizedByLibldap(dn))
        #expect(fast == dn.lowercased())
    }

    @Test(arguments: [
        "cn=O'Brien\\, Seán (night shift),ou=people,dc=example,dc=com",  // escape, non-ASCII
        "uid=jdoe, ou=people,dc=example,dc=com",                         // space after a separator
        "uid = jdoe,ou=people",                                          // spaces around '='
        "cn=a+uid=b,dc=example",                                         // multi-valued RDN
        "cn=\\\"quoted\\\",dc=example",
    ])
    func anythingElseGoesThroughLibldap(_ dn: String) {
        #expect(DistinguishedName.lowercasedIfSimple(dn.utf8) == nil)
    }

    @Test func spellingsOfOneDNNormalizeAlike() {
        let a = DistinguishedName.normalized("cn=O'Brien\\2C Seán (night shift),ou=people,dc=example,dc=com")
        let b = DistinguishedName.normalized("CN=O'Brien\\, Seán (night shift), ou=People,dc=example,dc=com")
        #expect(a == b)
        #expect(DistinguishedName.normalized("uid=jdoe, ou=people,dc=example,dc=com")
                == DistinguishedName.normalized("uid=jdoe,ou=people,dc=example,dc=com"))
    }

    /// `matchingKeys` (the listing's memberOf check, no string built) answers as comparing the
    /// normalized forms would, for simple DNs, DNs only libldap can normalize, and near misses.
    @Test(arguments: [
        "cn=technicians,ou=groups,dc=example,dc=com",
        "CN=Technicians,OU=Groups,DC=example,DC=com",
        "cn=technicians, ou=groups,dc=example,dc=com",
        "cn = technicians,ou=groups,dc=example,dc=com",
        "cn=technician,ou=groups,dc=example,dc=com",
        "cn=technicians,ou=groups,dc=example,dc=co",
        "cn=technicianz,ou=groups,dc=example,dc=com",
        "cn=technicians,ou=groups,dc=example,dc=com ",
        "cn=Techniciens\\, Zürich,ou=groups,dc=example,dc=com",
        "",
    ])
    func matchingAgreesWithComparingNormalizedForms(_ dn: String) {
        for group in ["cn=technicians,ou=groups,dc=example,dc=com", "cn=Techniciens\\2C Zürich,ou=groups,dc=example,dc=com"] {
            let key = DistinguishedName.normalized(group)
            #expect((DistinguishedName.matchingKeys(dn, [key]) != 0) == (DistinguishedName.normalized(dn) == key),
                    "\(dn) against \(group)")
        }
    }
}
