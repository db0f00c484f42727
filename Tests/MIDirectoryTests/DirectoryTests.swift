import Foundation
import Logging
import MITestSupport
import Testing
@testable import MIDirectory

/// The directory client against the real slapd fixture.
@Suite(.tags(.ldap), .needsLDAP) struct DirectoryTests {
    let fixture = Fixture.shared

    func settings(uri: String? = nil, ca: String? = nil, startTLS: Bool = true) throws -> DirectorySettings {
        let base = fixture["LDAP_BASE"]
        let password = Array(try String(contentsOfFile: fixture["BIND_PW_FILE"], encoding: .utf8).utf8)
        return DirectorySettings(
            connection: ConnectionSettings(uri: uri ?? fixture["LDAP_URI"], startTLS: startTLS,
                                           caFile: ca ?? fixture["CA_FILE"], timeoutSeconds: 5),
            baseDN: base, userBase: "ou=people,\(base)", bindDN: fixture["BIND_DN"], bindPassword: password,
            groups: [.foreman: "cn=foremen,ou=groups,\(base)", .technician: "cn=technicians,ou=groups,\(base)",
                     .support: "cn=support,ou=groups,\(base)"])
    }

    func directory(_ s: DirectorySettings? = nil) throws -> Directory {
        Directory(settings: try s ?? settings(), logger: Logger(label: "test"))
    }

    @Test func authenticatesAndReadsRoles() throws {
        let user = try directory().authenticate(uid: "tpatel", password: Array(fixture.password("tpatel").utf8))
        #expect(user.roles == [.foreman, .technician])
        #expect(user.name == "Tara Patel")
    }

    @Test func escapedDNMemberGetsItsRole() throws {
        let user = try directory().authenticate(uid: "sobrien", password: Array(fixture.password("sobrien").utf8))
        #expect(user.roles == [.technician])
        #expect(user.name == "O'Brien, Seán (night shift)")
    }

    /// The login sends its role queries with the user look-up for `uid=<id>,<userBase>`; an
    /// entry with another DN (a `cn=` RDN) or another spelling of the id is asked about again.
    @Test func rolesAskedAheadAnswerOnlyForTheDNTheyWereAskedFor() throws {
        let directory = try directory()
        let ldap = try directory.connect()
        let ahead = try #require(try directory.sendExpectedRoleQueries(loginName: "tpatel", on: ldap))
        #expect(ahead.dn == "uid=tpatel,ou=people,\(fixture["LDAP_BASE"])")
        var expected: Directory.ExpectedRoleQueries? = ahead
        let tpatel = try #require(try directory.user(uid: "tpatel"))
        let entry = LDAPEntry(dn: tpatel.dn, names: ["uid"], valueLists: [["tpatel"]])
        #expect(try directory.roles(of: entry, on: ldap, deciding: false, expected: &expected) == [.foreman, .technician])
        #expect(expected == nil)  // the answers sent ahead were used

        // Another DN, or the same DN with the id spelled otherwise: the queries are not used.
        for (name, found) in [("sobrien", LDAPEntry(dn: "cn=O'Brien\\, Seán (night shift),ou=people,\(fixture["LDAP_BASE"])",
                                                    names: ["uid"], valueLists: [["sobrien"]])),
                              ("TPATEL", entry)] {
            var unused = try directory.sendExpectedRoleQueries(loginName: name, on: ldap)
            #expect(unused != nil)
            let roles = try directory.roles(of: found, on: ldap, deciding: false, expected: &unused)
            #expect(roles == (name == "sobrien" ? [.technician] : [.foreman, .technician]))
            #expect(unused != nil)  // asked again for the entry itself
            if let unused { ldap.abandon(unused.sent) }
        }
        // A login name that is not a plain user id sends nothing ahead.
        #expect(try directory.sendExpectedRoleQueries(loginName: "a,b", on: ldap) == nil)
        #expect(try directory.sendExpectedRoleQueries(loginName: "mkhan@example.com", on: ldap) == nil)
        #expect(try directory.authenticate(uid: "sobrien", password: Array(fixture.password("sobrien").utf8)).roles
            == [.technician])
    }

    @Test func wrongPasswordKeepsResultCode49() throws {
        let error = #expect(throws: DirectoryError.self) {
            try directory().authenticate(uid: "mkhan", password: Array("nope".utf8))
        }
        #expect(error?.kind == .authenticationFailed)
        #expect(error?.code == .invalidCredentials)
    }

    @Test(arguments: ["*", "a*)(uid=*", "x)(|(uid=*", "mkhan)(uid=*", "*)(objectClass=*"])
    func filterInjectionNeverLogsIn(_ uid: String) throws {
        // Even with a real user's password, an injected filter must not match that user.
        let error = #expect(throws: DirectoryError.self) {
            try directory().authenticate(uid: uid, password: Array(fixture.password("mkhan").utf8))
        }
        #expect(error?.kind == .authenticationFailed)
    }

    @Test func listsAllUsersPastTheServerSizeLimit() throws {
        var count = 0
        var technicians = 0
        try directory().forEachUser(matching: nil, role: nil) { user in
            count += 1
            if user.has(.technician) { technicians += 1 }
        }
        let bulk = Int(fixture["BULK_USERS"]) ?? 0
        #expect(bulk > 500, "the fixture must hold more users than slapd's sizelimit 500")
        #expect(count == bulk + 8)
        #expect(technicians == bulk + 5)
    }

    /// Pages are double-buffered (the next page is asked for before this one is handed out):
    /// a lookup made from inside the listing, while that request is out, gets its own answer;
    /// a listing stopped midway abandons the request, and the connection keeps working.
    @Test func lookupsInsideAListingAndAListingStoppedMidway() throws {
        struct Enough: Error {}
        let directory = try directory()
        var seen = 0
        var looked: DirectoryUser?
        #expect(throws: Enough.self) {
            try directory.forEachUser(matching: nil, role: nil) { _ in
                seen += 1
                if seen == 501 { looked = try directory.user(uid: "lchen") }
                if seen == 700 { throw Enough() }
            }
        }
        #expect(seen == 700)
        #expect(looked?.roles == [.support])
        var count = 0
        try directory.forEachUser(matching: nil, role: nil) { _ in count += 1 }
        #expect(count == (Int(fixture["BULK_USERS"]) ?? 0) + 8)
        #expect(try directory.userIDs(prefix: "u0000").count == 9)
    }

    /// The service account's re-bind after a user's bind is sent without waiting: its answer is
    /// read before the connection's next request, which fails if the bind was refused.
    @Test func aBindSentAheadIsSettledByTheNextRequest() throws {
        let s = try settings()
        let connection = try LDAPConnection(settings: s.connection, logger: Logger(label: "test"))
        let refused = { (code: LDAPResultCode) in DirectoryError(.serviceBindFailed, code: code, "refused") }
        try connection.sendDeferredBind(dn: fixture["BIND_DN"], password: Array("not-the-password".utf8), refused: refused)
        let error = #expect(throws: DirectoryError.self) {
            try connection.search(base: s.baseDN, scope: .base, filter: "(objectClass=*)", attributes: ["1.1"],
                                  pageSize: 0) { _ in }
        }
        #expect(error?.kind == .serviceBindFailed)
        #expect(error?.code == .invalidCredentials)
        try connection.sendDeferredBind(dn: fixture["BIND_DN"], password: try #require(s.bindPassword), refused: refused)
        var found = 0
        try connection.search(base: s.userBase, scope: .subtree, filter: "(uid=lchen)", attributes: ["uid"]) { _ in found += 1 }
        #expect(found == 1)
    }

    @Test func patternAndRoleFilter() throws {
        var uids: [String] = []
        try directory().forEachUser(matching: Glob("*Ångström*"), role: .technician) { uids.append($0.uid) }
        #expect(uids == ["zangstrom"])
        uids = []
        try directory().forEachUser(matching: Glob("u0000?"), role: nil) { uids.append($0.uid) }
        #expect(uids.sorted() == (1...9).map { "u0000\($0)" })
    }

    @Test func wrongCAIsATLSFailure() throws {
        let error = #expect(throws: DirectoryError.self) {
            try directory(settings(ca: fixture["WRONG_CA_FILE"])).authenticate(uid: "mkhan", password: Array(fixture.password("mkhan").utf8))
        }
        #expect(error?.kind == .tls)
    }

    @Test func ldapsWorksWithTheRightCA() throws {
        let user = try directory(settings(uri: fixture["LDAPS_URI"], startTLS: false))
            .authenticate(uid: "lchen", password: Array(fixture.password("lchen").utf8))
        #expect(user.roles == [.support])
    }

    @Test func cleartextIsRefusedUnlessAllowed() throws {
        let error = #expect(throws: DirectoryError.self) {
            try directory(settings(startTLS: false)).authenticate(uid: "mkhan", password: Array(fixture.password("mkhan").utf8))
        }
        #expect(error?.kind == .configuration)
    }
}

/// The directory client on the hardened fixture: roles from memberOf, reads by the service account.
@Suite(.tags(.ldap), .needsLDAP) struct StrictDirectoryClientTests {
    let fixture = Fixture.strict

    func directory(_ roleSource: RoleSource = .auto, bindAsService: Bool = true) throws -> Directory {
        let base = fixture["LDAP_BASE"]
        let password = Array(try String(contentsOfFile: fixture["BIND_PW_FILE"], encoding: .utf8).utf8)
        return Directory(settings: DirectorySettings(
            connection: ConnectionSettings(uri: fixture["LDAP_URI"], startTLS: true, caFile: fixture["CA_FILE"], timeoutSeconds: 5),
            baseDN: base, userBase: "ou=people,\(base)", bindDN: fixture["BIND_DN"], bindPassword: password,
            groups: [.foreman: "cn=foremen,ou=groups,\(base)", .technician: "cn=technicians,ou=groups,\(base)",
                     .support: "cn=support,ou=groups,\(base)"], roleSource: roleSource), logger: Logger(label: "test"))
    }

    @Test(arguments: [RoleSource.auto, .memberOf, .groups])
    func loginRolesAndListingAgreeWhateverTheRoleSource(_ source: RoleSource) throws {
        let directory = try directory(source)
        let user = try directory.authenticate(uid: "sobrien", password: Array(fixture.password("sobrien").utf8))
        #expect(user.roles == [.technician])
        var foremen: [String] = []
        try directory.forEachUser(matching: nil, role: .foreman) { foremen.append($0.uid) }
        // The memberof overlay follows `member`, which is all these groupOfNames list: auto
        // reads every role from memberOf.
        if source == .auto { #expect(directory.rolePlanCache?.fromMemberOf == [.foreman, .technician, .support]) }
        #expect(foremen.sorted() == ["mkhan", "tpatel"])
        // With memberOf, the listing never read a role group's member list.
        #expect((directory.membership == nil) == (source != .groups))
    }

    @Test func userIDCompletionIsAPrefixSearchCappedAndEscaped() throws {
        let directory = try directory()
        #expect(try directory.userIDs(prefix: "u0000", limit: 200) == (1...9).map { "u0000\($0)" })
        let capped = try directory.userIDs(prefix: "u", limit: 50)
        #expect(capped.count == 50)
        #expect(try directory.userIDs(prefix: "*").isEmpty)
        #expect(try directory.userIDs(prefix: "mk", role: .technician).isEmpty)
        #expect(try directory.userIDs(prefix: "tp", role: .technician) == ["tpatel"])
    }
}

/// Without a service account on a directory whose entries carry memberOf (`--memberof`, anyone
/// may read): the login reads roles as the session's role plan says, from memberOf for groups
/// the overlay follows, not by asking the groups (which a user may not be allowed to read).
@Suite(.tags(.ldap), .needsLDAP) struct MemberOfWithoutServiceAccountTests {
    static let fixture: Fixture = Fixture.dedicated(variable: "MIADMIN_TEST_FIXTURE_MEMBEROF", name: "memberof",
        options: ["--memberof", "--users", "20"], what: "the memberof LDAP fixture")

    @Test func theLoginFollowsTheRolePlan() throws {
        let fixture = Self.fixture
        let base = fixture["LDAP_BASE"]
        let directory = Directory(settings: DirectorySettings(
            connection: ConnectionSettings(uri: fixture["LDAP_URI"], startTLS: true, caFile: fixture["CA_FILE"], timeoutSeconds: 5),
            baseDN: base, userBase: "ou=people,\(base)", bindDN: nil, bindPassword: nil,
            groups: [.foreman: "cn=foremen,ou=groups,\(base)", .technician: "cn=technicians,ou=groups,\(base)",
                     .support: "cn=support,ou=groups,\(base)"]), logger: Logger(label: "test"))
        let user = try directory.authenticate(uid: "tpatel", password: Array(fixture.password("tpatel").utf8))
        #expect(user.roles == [.foreman, .technician])
        #expect(directory.rolePlanCache?.fromMemberOf == [.foreman, .technician, .support])
    }
}
