import Foundation
import Testing
@testable import MIDirectory

/// Pure rules of the directory client: URI lists, timeouts, AD bind diagnostics.
@Suite struct DirectoryRulesTests {
    @Test func everyURIOfAListIsParsedByLibldap() throws {
        let list = try #require(LDAPURIList("ldaps://a.example:636 ldap://b.example:389"))
        #expect(list.schemes == ["ldaps", "ldap"])
        #expect(list.uris.count == 2)
        // The second URI would carry the password in cleartext: named, whatever the first is.
        #expect(list.cleartext(startTLS: false) == [list.uris[1]])
        #expect(list.cleartext(startTLS: true).isEmpty)
        #expect(list.needsStartTLS)
        // Commas separate too (libldap's own list syntax).
        #expect(LDAPURIList("ldaps://a:636,ldaps://b:636")?.cleartext(startTLS: false) == [])
        #expect(LDAPURIList("ldaps://a:636")?.needsStartTLS == false)
        #expect(LDAPURIList("http://a") == nil)
        #expect(LDAPURIList("") == nil)
    }

    @Test func aURIListWithACleartextEntryIsRefusedBeforeConnecting() throws {
        // Port 1 on loopback: had a connection been tried the error would be "unreachable".
        let settings = ConnectionSettings(uri: "ldaps://127.0.0.1:1 ldap://127.0.0.1:1", startTLS: false,
                                          caFile: nil, timeoutSeconds: 1)
        let error = #expect(throws: DirectoryError.self) { try LDAPConnection(settings: settings, logger: .init(label: "t")) }
        #expect(error?.kind == .configuration)
        #expect(error?.message.contains("ldap://127.0.0.1:1") == true)
    }

    @Test(arguments: [(0.25, 0, 250_000), (1.5, 1, 500_000), (10, 10, 0), (0.001, 0, 1_000)])
    func timeoutsKeepTheirFraction(_ seconds: Double, _ whole: Int, _ micro: Int) {
        let time = ConnectionSettings(uri: "ldaps://x", startTLS: false, caFile: nil, timeoutSeconds: seconds).timeval
        #expect(time.tv_sec == whole)
        #expect(time.tv_usec == micro)
    }

    @Test func adBindDiagnosticsNameTheAccountState() {
        func state(_ data: String) -> AccountState? {
            AccountState(diagnostic: "80090308: LdapErr: DSID-0C09041C, comment: AcceptSecurityContext error, data \(data), v4563")
        }
        #expect(state("773") == .mustChangePassword)
        #expect(state("533") == .disabled)
        #expect(state("532") == .passwordExpired)
        #expect(state("775") == .lockedOut)
        #expect(state("701") == .accountExpired)
        // A wrong password and an unknown user stay generic.
        #expect(state("52e") == nil)
        #expect(state("525") == nil)
        #expect(AccountState(diagnostic: nil) == nil)
        #expect(AccountState(diagnostic: "invalid credentials") == nil)
    }

    /// Every family's way of saying why a bind failed, or that it succeeded on an account that
    /// must not be used (389 answers as measured on 389 DS 2.3; ppolicy as OpenLDAP 2.5 sends it).
    @Test func aBindAnswerGivesItsOutcome() {
        func outcome(_ code: LDAPResultCode, _ diagnostic: String? = nil, policy: PasswordPolicyResponse? = nil,
                     expired: Bool = false, expiring: Int? = nil) -> LoginOutcome {
            LoginOutcome(BindAnswer(code: code, diagnostic: diagnostic, passwordPolicy: policy,
                                    passwordExpiredControl: expired, passwordExpiringSeconds: expiring))
        }
        #expect(outcome(.success) == .accepted(warning: nil))
        #expect(outcome(.invalidCredentials) == .wrongCredentials)
        // OpenLDAP with ppolicy.
        #expect(outcome(.success, policy: .init(error: .changeAfterReset)) == .unusable(.mustChangePassword))
        #expect(outcome(.invalidCredentials, policy: .init(error: .accountLocked)) == .unusable(.policyLocked))
        #expect(outcome(.invalidCredentials, policy: .init(error: .passwordExpired)) == .unusable(.passwordExpired))
        #expect(outcome(.success, policy: .init(graceLoginsRemaining: 2)) == .accepted(warning: .graceLogins(remaining: 2)))
        #expect(outcome(.success, policy: .init(secondsBeforeExpiration: 3600)) == .accepted(warning: .expiresIn(seconds: 3600)))
        // 389 Directory Server.
        #expect(outcome(.unwillingToPerform, "Account inactivated. Contact system administrator.") == .unusable(.inactivated))
        #expect(outcome(.constraintViolation, "Exceed password retry limit. Please try later.") == .unusable(.lockedOut))
        #expect(outcome(.invalidCredentials, expired: true) == .unusable(.passwordExpired))
        #expect(outcome(.success, expired: true) == .unusable(.mustChangePassword))
        #expect(outcome(.success, policy: .init(graceLoginsRemaining: 1), expired: true) == .accepted(warning: .graceLogins(remaining: 1)))
        #expect(outcome(.success, expiring: 86_400) == .accepted(warning: .expiresIn(seconds: 86_400)))
        // Active Directory.
        #expect(outcome(.invalidCredentials, "AcceptSecurityContext error, data 775, v4563") == .unusable(.lockedOut))
        #expect(outcome(.invalidCredentials, "AcceptSecurityContext error, data 52e, v4563") == .wrongCredentials)
        // Anything else is no "wrong password": the code and the server's words.
        #expect(outcome(.unwillingToPerform, "unauthenticated bind (DN with no password) disallowed")
                == .refused(.unwillingToPerform, diagnostic: "unauthenticated bind (DN with no password) disallowed"))
        #expect(outcome(.constraintViolation) == .refused(.constraintViolation, diagnostic: nil))
    }

    @Test func aPasswordWarningSaysHowLong() {
        #expect(PasswordWarning.expiresIn(seconds: 604_785).message.contains("expires in 6 days 23 h"))
        #expect(PasswordWarning.expiresIn(seconds: 90_000).message.contains("expires in 1 day 1 h"))
        #expect(PasswordWarning.expiresIn(seconds: 3_700).message.contains("expires in 1 h 1 min"))
        #expect(PasswordWarning.expiresIn(seconds: 5).message.contains("expires in 1 min"))
        #expect(PasswordWarning.graceLogins(remaining: 1).message.contains("1 grace login left"))
    }

    /// A crew member's user id is read from the DN only where the DN is plainly
    /// `<userAttribute>=ID,<userBase>`; anything else is looked up.
    @Test func aCrewMembersUserIDComesFromThePlainDNOnly() {
        let base = DistinguishedName.normalized("ou=people,dc=example,dc=com")
        #expect(Directory.simpleRDNValue("uid=jdoe,ou=people,dc=example,dc=com", attribute: "uid", under: base) == "jdoe")
        #expect(Directory.simpleRDNValue("UID=JDoe, OU=People,DC=example,DC=com", attribute: "uid", under: base) == "JDoe")
        // Another attribute, an escaped value, another folder, a multi-valued RDN: looked up.
        #expect(Directory.simpleRDNValue("cn=Zoë Ångström,ou=people,dc=example,dc=com", attribute: "uid", under: base) == nil)
        #expect(Directory.simpleRDNValue("uid=o\\2Cbrien,ou=people,dc=example,dc=com", attribute: "uid", under: base) == nil)
        #expect(Directory.simpleRDNValue("uid=jdoe,ou=staff,dc=example,dc=com", attribute: "uid", under: base) == nil)
        #expect(Directory.simpleRDNValue("uid=jdoe+cn=John,ou=people,dc=example,dc=com", attribute: "uid", under: base) == nil)
        #expect(Directory.withoutUniqueID("uid=jdoe,ou=people,dc=example,dc=com#'0101'B") == "uid=jdoe,ou=people,dc=example,dc=com")
    }
}
