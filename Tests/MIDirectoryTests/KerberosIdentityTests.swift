import Testing
@testable import MIDirectory

/// Reading the directory's answer to "Who am I?" after a GSSAPI bind, and which DNs are users.
@Suite struct KerberosIdentityTests {
    @Test func answersOfEachForm() {
        #expect(KerberosIdentity(whoAmI: "dn:uid=mkhan,ou=people,dc=example,dc=com") == .entry("uid=mkhan,ou=people,dc=example,dc=com"))
        #expect(KerberosIdentity(whoAmI: "dn:uid=mkhan@other.test,cn=mi.test,cn=gssapi,cn=auth")
                == .entry("uid=mkhan@other.test,cn=mi.test,cn=gssapi,cn=auth"))
        #expect(KerberosIdentity(whoAmI: "u:EXAMPLE\\mkhan") == .account(domain: "EXAMPLE", name: "mkhan"))
        #expect(KerberosIdentity(whoAmI: "u:mkhan") == .account(domain: nil, name: "mkhan"))
        #expect(KerberosIdentity(whoAmI: "") == .anonymous)
        #expect(KerberosIdentity(whoAmI: "u:EXAMPLE\\mkhan").description == "EXAMPLE\\mkhan")
    }

    @Test func onlyEntriesBelowTheUserBaseAreUsers() {
        let base = "ou=people,dc=example,dc=com"
        #expect(DistinguishedName.isBelow("uid=mkhan,ou=people,dc=example,dc=com", base))
        #expect(DistinguishedName.isBelow("UID=mkhan,OU=People,DC=example,DC=com", base))
        #expect(DistinguishedName.isBelow("cn=O'Brien\\, Seán (night shift),ou=people,dc=example,dc=com", base))
        #expect(DistinguishedName.isBelow("uid=x,ou=sub,ou=people,dc=example,dc=com", base))
        #expect(!DistinguishedName.isBelow(base, base))
        #expect(!DistinguishedName.isBelow("uid=mkhan,cn=mi.test,cn=gssapi,cn=auth", base))
        #expect(!DistinguishedName.isBelow("cn=miadmin,ou=services,dc=example,dc=com", base))
        // The comma before the base is part of a value: the entry is below dc=example,dc=com only.
        #expect(!DistinguishedName.isBelow("cn=x\\,ou=people,dc=example,dc=com", base))
        #expect(!DistinguishedName.isBelow("uid=mkhan,ou=people,dc=example,dc=com", ""))
    }
}
