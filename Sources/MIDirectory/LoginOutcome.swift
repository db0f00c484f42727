/// What a user's bind means for the login, from everything the server answered: the result
/// code, the diagnostic message and the response controls, on every directory family.
///
/// | server | answer | outcome |
/// |---|---|---|
/// | any | 0 | let in |
/// | OpenLDAP ppolicy, 389 | 0 + policy `changeAfterReset` | refused: must change |
/// | 389 | 0 + password-expired control, no grace count | refused: must change (reset) |
/// | OpenLDAP ppolicy, 389 | 0 + `graceAuthNsRemaining` / `timeBeforeExpiration` | let in, with a warning |
/// | 389 | 0 + password-expiring control (seconds) | let in, with a warning |
/// | OpenLDAP ppolicy | 49 + policy `accountLocked` / `passwordExpired` | refused: that state |
/// | 389 | 49 + password-expired control | refused: expired |
/// | 389 | 53 "Account inactivated" | refused: locked (nsAccountLock) |
/// | 389 | 19 "Exceed password retry limit" | refused: locked out |
/// | Active Directory | 49 + `data 533/532/773/775/701` | refused: that state |
/// | any | 49 otherwise | wrong password (or unknown user: one message) |
/// | any | other codes | refused, with the code and the server's words |
///
/// A let-in with a state that forbids use (must change) is never let in: the server then allows
/// nothing but a password change, and the console would work on as its service account.
public enum LoginOutcome: Sendable, Equatable {
    case accepted(warning: PasswordWarning?)
    case unusable(AccountState)
    case wrongCredentials
    /// Refused for a reason the server names only by code and message.
    case refused(LDAPResultCode, diagnostic: String?)

    public init(_ answer: BindAnswer) {
        let policy = answer.passwordPolicy
        switch answer.code {
        case .success:
            switch policy?.error {
            case .changeAfterReset?: self = .unusable(.mustChangePassword); return
            case .accountLocked?: self = .unusable(.policyLocked); return
            case .passwordExpired? where policy?.graceLoginsRemaining == nil: self = .unusable(.passwordExpired); return
            default: break
            }
            if let grace = policy?.graceLoginsRemaining {
                self = .accepted(warning: .graceLogins(remaining: grace))
            } else if answer.passwordExpiredControl {
                // 389 sends it on a successful bind when the password must be changed (after a
                // reset, or expired with grace logins it did not count for us).
                self = .unusable(.mustChangePassword)
            } else if let seconds = policy?.secondsBeforeExpiration ?? answer.passwordExpiringSeconds {
                self = .accepted(warning: .expiresIn(seconds: seconds))
            } else {
                self = .accepted(warning: nil)
            }
        case .invalidCredentials:
            if let state = AccountState(diagnostic: answer.diagnostic) {
                self = .unusable(state)
            } else if policy?.error == .accountLocked {
                self = .unusable(.policyLocked)
            } else if policy?.error == .passwordExpired || answer.passwordExpiredControl {
                self = .unusable(.passwordExpired)
            } else {
                self = .wrongCredentials
            }
        case .unwillingToPerform where Self.says(answer.diagnostic, "inactivated"):
            self = .unusable(.inactivated)
        case .constraintViolation where Self.says(answer.diagnostic, "retry limit"):
            self = .unusable(.lockedOut)
        default:
            self = .refused(answer.code, diagnostic: answer.diagnostic)
        }
    }

    private static func says(_ diagnostic: String?, _ words: String) -> Bool {
        diagnostic?.range(of: words, options: .caseInsensitive) != nil
    }
}
