import CLDAP

/// An LDAP result code as libldap reports it: positive codes come from the server (RFC 4511),
/// negative ones from the client library (server down, timeout, connect error).
///
/// Kept typed so callers can tell a wrong password (49) from a dead server (-1).
public struct LDAPResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let success = LDAPResultCode(rawValue: LDAP_SUCCESS)
    public static let sizeLimitExceeded = LDAPResultCode(rawValue: LDAP_SIZELIMIT_EXCEEDED)
    public static let noSuchObject = LDAPResultCode(rawValue: LDAP_NO_SUCH_OBJECT)
    public static let constraintViolation = LDAPResultCode(rawValue: LDAP_CONSTRAINT_VIOLATION)
    public static let invalidCredentials = LDAPResultCode(rawValue: LDAP_INVALID_CREDENTIALS)
    public static let insufficientAccess = LDAPResultCode(rawValue: LDAP_INSUFFICIENT_ACCESS)
    public static let unwillingToPerform = LDAPResultCode(rawValue: LDAP_UNWILLING_TO_PERFORM)
    public static let serverDown = LDAPResultCode(rawValue: LDAP_SERVER_DOWN)
    public static let timeout = LDAPResultCode(rawValue: LDAP_TIMEOUT)
    public static let connectError = LDAPResultCode(rawValue: LDAP_CONNECT_ERROR)

    /// libldap's own words for the code (`ldap_err2string`).
    public var description: String {
        String(cString: ldap_err2string(rawValue))
    }

    /// Codes meaning the directory could not be reached or spoken to at all.
    public var isConnectionFailure: Bool {
        [Self.serverDown, .timeout, .connectError].contains(self)
    }
}
