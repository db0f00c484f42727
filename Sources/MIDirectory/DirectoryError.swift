/// Why a directory operation failed. Carries the LDAP result code where there is one, so the
/// console can map it to an exit code (unreachable and TLS: 2; authentication: 4).
///
/// Messages never contain a password: they name the user id, the server URI and libldap's text.
public struct DirectoryError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached (connect refused, timed out, server down).
        case unreachable
        /// TLS could not be established or the server's certificate was not trusted.
        case tls
        /// The user could not be authenticated: wrong password, unknown or ambiguous user id,
        /// or an empty password (refused before any bind).
        case authenticationFailed
        /// The directory says the account cannot log in now (locked, disabled, expired, must
        /// change its password), or refused the bind with a code other than "invalid
        /// credentials": see `LoginOutcome`.
        case accountUnusable
        /// The user authenticated but holds none of the configured roles.
        case noRole
        /// The service account (config `ldap.bindDN`) was refused.
        case serviceBindFailed
        /// The configuration cannot work (bad URI, unreadable CA file, cleartext refused).
        case configuration
        /// Any other LDAP failure (the result code says which).
        case operationFailed
    }

    public let kind: Kind
    public let code: LDAPResultCode?
    public let message: String

    public init(_ kind: Kind, code: LDAPResultCode? = nil, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String {
        if let code { return "\(message) (LDAP \(code.rawValue): \(code))" }
        return message
    }
}
