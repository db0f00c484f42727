import Testing
@testable import MIDirectory

/// The role groups' member lists kept as hashes: a user is a member under any spelling of their
/// DN that normalizes alike, or by user id in any case; nobody else is.
@Suite struct GroupMembershipTests {
    @Test func membersAreFoundByTheirNormalizedDNOrUserIDAndNobodyElse() {
        var membership = GroupMembership()
        let foremen = ["uid=mkhan,ou=people,dc=example,dc=com", "uid=tpatel,ou=people,dc=example,dc=com",
                       "uid=a,ou=people,dc=example,dc=com", "uid=zz,ou=people,dc=example,dc=com"]
        membership.dns[.foreman] = .init(foremen.map { membership.key(DistinguishedName.normalized($0)) })
        membership.uids[.technician] = .init([membership.key("jdoe")])
        #expect(membership.roles(dn: "UID=MKhan, OU=People,DC=Example,DC=com", uid: "mkhan") == [.foreman])
        #expect(membership.roles(dn: "uid=jdoe,ou=people,dc=example,dc=com", uid: "JDoe") == [.technician])
        for foreman in foremen { #expect(membership.roles(dn: foreman, uid: nil) == [.foreman]) }
        #expect(membership.roles(dn: "uid=mkhan2,ou=people,dc=example,dc=com", uid: "mkhan2").isEmpty)
        #expect(membership.roles(dn: "uid=other,ou=people,dc=example,dc=com", uid: nil).isEmpty)
    }

    /// Two lists hash under keys of their own: the same text gives another key in each.
    @Test func eachListHasKeysOfItsOwn() {
        let one = GroupMembership(), other = GroupMembership()
        #expect(one.key("uid=mkhan,ou=people,dc=example,dc=com") == one.key("uid=mkhan,ou=people,dc=example,dc=com"))
        #expect(one.key("uid=mkhan,ou=people,dc=example,dc=com") != other.key("uid=mkhan,ou=people,dc=example,dc=com"))
    }
}
