/// What a server answered to a bind: the result code, its diagnostic message and the response
/// controls that say more about the account (``LDAPConnection/bind(dn:password:askPasswordPolicy:)``).
public struct BindAnswer: Sendable, Equatable {
    public var code: LDAPResultCode
    /// The server's diagnostic message (Active Directory's `data 773`, 389's "Account inactivated").
    public var diagnostic: String?
    /// The password policy response control (draft-behera-ldap-password-policy,
    /// 1.3.6.1.4.1.42.2.27.8.5.1): OpenLDAP's ppolicy overlay and 389 answer it when asked.
    public var passwordPolicy: PasswordPolicyResponse?
    /// The Netscape password-expired control (2.16.840.1.113730.3.4.4) was in the answer (389).
    public var passwordExpiredControl: Bool
    /// The value of the Netscape password-expiring control (2.16.840.1.113730.3.4.5): seconds
    /// until the password expires (389).
    public var passwordExpiringSeconds: Int?
    /// Who the bind authenticated, where the client learns it: the principal of a GSSAPI bind.
    public var identity: String?

    public init(code: LDAPResultCode, diagnostic: String? = nil, passwordPolicy: PasswordPolicyResponse? = nil,
                passwordExpiredControl: Bool = false, passwordExpiringSeconds: Int? = nil, identity: String? = nil) {
        self.code = code
        self.identity = identity
        self.diagnostic = diagnostic
        self.passwordPolicy = passwordPolicy
        self.passwordExpiredControl = passwordExpiredControl
        self.passwordExpiringSeconds = passwordExpiringSeconds
    }

    static let passwordExpiredOID = "2.16.840.1.113730.3.4.4"
    static let passwordExpiringOID = "2.16.840.1.113730.3.4.5"
}

/// The password policy response control's fields.
public struct PasswordPolicyResponse: Sendable, Equatable {
    /// The error field (`passwordExpired`, `accountLocked`, `changeAfterReset`, ...), nil when
    /// the server sent none.
    public var error: Error?
    /// `timeBeforeExpiration`, seconds.
    public var secondsBeforeExpiration: Int?
    /// `graceAuthNsRemaining`.
    public var graceLoginsRemaining: Int?

    public enum Error: Int, Sendable, Equatable {
        case passwordExpired = 0, accountLocked, changeAfterReset, passwordModNotAllowed, mustSupplyOldPassword,
             insufficientPasswordQuality, passwordTooShort, passwordTooYoung, passwordInHistory, passwordTooLong
    }

    public init(error: Error? = nil, secondsBeforeExpiration: Int? = nil, graceLoginsRemaining: Int? = nil) {
        self.error = error
        self.secondsBeforeExpiration = secondsBeforeExpiration
        self.graceLoginsRemaining = graceLoginsRemaining
    }
}
