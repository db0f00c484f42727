/// Why an account cannot log in (or receive forms), as the directory reports it: in a bind's
/// answer (``LoginOutcome``) or in the user's entry (``init(entry:)``).
///
/// Each state names what the directory keeps it in, so an administrator knows where to look,
/// and what the person must do. A wrong password is not a state: it stays one generic message
/// with an unknown user id, so the console never reveals which user ids exist.
public enum AccountState: Sendable, Equatable, CaseIterable {
    /// Active Directory: `userAccountControl` bit 2 (bind diagnostic `data 533`).
    case disabled
    /// 389 Directory Server / FreeIPA: `nsAccountLock: true` (bind result 53, "Account inactivated").
    case inactivated
    /// Locked out after failed logons: AD `data 775`, 389 result 19 ("Exceed password retry limit").
    case lockedOut
    /// OpenLDAP's password policy: `pwdAccountLockedTime` (failed logons or an administrator's lock).
    case policyLocked
    /// The password's lifetime is over and no grace login is left.
    case passwordExpired
    /// An administrator reset the password: it must be changed before the account is used
    /// (AD `data 773`, password policy `changeAfterReset`, 389's password-expired control on a
    /// successful bind).
    case mustChangePassword
    /// Active Directory: `accountExpires` has passed (`data 701`).
    case accountExpired

    /// The state named by an Active Directory bind diagnostic
    /// (`80090308: LdapErr: DSID-0C09041C, comment: AcceptSecurityContext error, data 773, v4563`),
    /// or nil: AD answers 49 both for a wrong password and for a right password on an account
    /// that cannot log in, and only the `data` code says which. A wrong password (`52e`) or an
    /// unknown user (`525`) is nil.
    public init?(diagnostic: String?) {
        guard let diagnostic, let range = diagnostic.range(of: "data ", options: .caseInsensitive) else { return nil }
        switch diagnostic[range.upperBound...].prefix(while: \.isHexDigit).lowercased() {
        case "773": self = .mustChangePassword
        case "533": self = .disabled
        case "532": self = .passwordExpired
        case "775": self = .lockedOut
        case "701": self = .accountExpired
        default: return nil
        }
    }

    /// The attributes of a user entry that say an account is locked or disabled, read with every
    /// user entry: Active Directory's `userAccountControl`, 389's `nsAccountLock`, OpenLDAP
    /// ppolicy's `pwdAccountLockedTime` (operational: returned only when named), 389's
    /// `accountUnlockTime` (set when failed binds lock an account out).
    static let entryAttributes = (activeDirectory: ["userAccountControl"],
                                  other: ["nsAccountLock", "accountUnlockTime", "pwdAccountLockedTime"])

    /// The state an entry's own attributes give, or nil (usable, as far as the entry says).
    /// `pwdAccountLockedTime` and `accountUnlockTime` stay on an entry whose timed lockout has
    /// run out until its next bind: such an account counts as locked until then.
    init?(entry: LDAPEntry) {
        if let control = entry.first("userAccountControl").flatMap(Int.init), control & 2 != 0 {
            self = .disabled
        } else if entry.first("nsAccountLock")?.lowercased() == "true" {
            self = .inactivated
        } else if entry.first("pwdAccountLockedTime") != nil {
            self = .policyLocked
        } else if entry.first("accountUnlockTime") != nil {
            self = .lockedOut
        } else {
            return nil
        }
    }

    /// What happened and what to do, for the person logging in.
    public var explanation: String {
        switch self {
        case .disabled:
            return "the account is disabled in the directory (userAccountControl): ask your directory administrators to enable it"
        case .inactivated:
            return "the account is locked by the directory (nsAccountLock): an administrator must unlock it"
        case .lockedOut:
            return "the account is locked out after failed logons: wait for the lockout to end or ask your directory administrators"
        case .policyLocked:
            return "the account is locked by the directory's password policy (pwdAccountLockedTime: failed logons or an "
                + "administrator's lock): an administrator must unlock it"
        case .passwordExpired:
            return "the password has expired: change it with your site's password tool, then log in again"
        case .mustChangePassword:
            return "the password is right, but it must be changed before first use (it was set or reset by an "
                + "administrator): change it with your site's password tool, then log in again"
        case .accountExpired:
            return "the account has expired: ask your directory administrators to extend it"
        }
    }

    /// Short, for a listing's column: `locked`, `disabled`.
    public var label: String {
        switch self {
        case .disabled: return "disabled"
        case .inactivated, .policyLocked: return "locked"
        case .lockedOut: return "locked out"
        case .passwordExpired: return "password expired"
        case .mustChangePassword: return "must change password"
        case .accountExpired: return "expired"
        }
    }

    /// Where the directory keeps the state, where one attribute does.
    public var attribute: String? {
        switch self {
        case .disabled: return "userAccountControl"
        case .inactivated: return "nsAccountLock"
        case .policyLocked: return "pwdAccountLockedTime"
        case .lockedOut, .passwordExpired, .mustChangePassword, .accountExpired: return nil
        }
    }

    /// The label with the attribute: `locked (nsAccountLock)`.
    public var summary: String { label + (attribute.map { " (\($0))" } ?? "") }
}

/// A password that still works, but not for long: a warning, and the login goes on.
public enum PasswordWarning: Sendable, Equatable {
    /// Expired, with this many grace logins left (password policy `graceAuthNsRemaining`).
    case graceLogins(remaining: Int)
    /// Expires in this many seconds (password policy `timeBeforeExpiration`; 389's
    /// password-expiring control 2.16.840.1.113730.3.4.5).
    case expiresIn(seconds: Int)

    public var message: String {
        switch self {
        case .graceLogins(let remaining):
            return "your password has expired; \(remaining) grace login\(remaining == 1 ? "" : "s") left: "
                + "change it now with your site's password tool"
        case .expiresIn(let seconds):
            return "your password expires in \(Self.duration(seconds)): change it soon with your site's password tool"
        }
    }

    static func duration(_ seconds: Int) -> String {
        let days = seconds / 86_400, hours = seconds % 86_400 / 3_600, minutes = seconds % 3_600 / 60
        if days > 0 { return "\(days) day\(days == 1 ? "" : "s")" + (hours > 0 ? " \(hours) h" : "") }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        return "\(max(minutes, 1)) min"
    }
}
