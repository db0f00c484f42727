/// Why Active Directory refused a bind, from its diagnostic message
/// (`80090308: LdapErr: DSID-0C09041C, comment: AcceptSecurityContext error, data 773, v4563`).
///
/// AD answers 49 (invalid credentials) both for a wrong password and for a right password on an
/// account that cannot log in; the `data` code says which. Only the states that are reported after
/// a right password are named: a wrong password (`52e`) or an unknown user (`525`) stays generic, so
/// the console never reveals which user ids exist.
public enum AccountState: String, Sendable, CaseIterable {
    case mustChangePassword = "773"
    case disabled = "533"
    case passwordExpired = "532"
    case locked = "775"
    case accountExpired = "701"

    /// The state named by an AD diagnostic message, or nil (wrong password, other servers).
    public init?(diagnostic: String?) {
        guard let diagnostic, let range = diagnostic.range(of: "data ", options: .caseInsensitive) else { return nil }
        let code = diagnostic[range.upperBound...].prefix { $0.isHexDigit }.lowercased()
        guard let state = AccountState(rawValue: code) else { return nil }
        self = state
    }

    /// What happened and what to do, for the person logging in.
    public var explanation: String {
        switch self {
        case .mustChangePassword:
            return "the password is right, but it must be changed before first use: change it with your site's password tool (for example at a Windows logon), then log in again"
        case .disabled:
            return "the account is disabled: ask your directory administrators to enable it"
        case .passwordExpired:
            return "the password has expired: change it with your site's password tool, then log in again"
        case .locked:
            return "the account is locked out after failed logons: wait for the lockout to end or ask your directory administrators"
        case .accountExpired:
            return "the account has expired: ask your directory administrators to extend it"
        }
    }
}
