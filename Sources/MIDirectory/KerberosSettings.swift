/// Kerberos for the directory (`ldap.kerberos`): people log in with their ticket, and the
/// service account may bind from a keytab instead of a password file. The realm and the KDC
/// come from the system's Kerberos configuration (krb5.conf).
public struct KerberosSettings: Sendable, Equatable {
    /// A user holding a valid ticket logs in without a password (a SASL GSSAPI bind as the
    /// ticket's principal).
    public var login: Bool
    /// The service account's keytab (`serviceKeytab`), with `servicePrincipal` the principal
    /// whose key it holds.
    public var serviceKeytab: String?
    public var servicePrincipal: String?
    /// The in-memory credential cache holding the service account's ticket, got from the keytab
    /// when the settings were made (``Kerberos/serviceTicket(keytab:principal:)``): the keytab
    /// itself is not read again.
    public var serviceCache: String?
    /// The realms whose principals may log in (`realms`); empty: only krb5.conf's default realm.
    /// A principal of a realm the directory's realm trusts is not one of its users, even when
    /// its name part is a user id.
    public var realms: [String]

    public init(login: Bool, serviceKeytab: String? = nil, servicePrincipal: String? = nil, serviceCache: String? = nil,
                realms: [String] = []) {
        self.login = login
        self.realms = realms
        self.serviceKeytab = serviceKeytab
        self.servicePrincipal = servicePrincipal
        self.serviceCache = serviceCache
    }

    /// True when the service account binds from the keytab.
    public var servesFromKeytab: Bool { serviceKeytab != nil }
}

/// A Kerberos principal, `name@REALM` (the realm part may be missing).
public struct KerberosPrincipal: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let realm: String?

    public init(_ text: String) {
        if let at = text.lastIndex(of: "@") {
            name = String(text[..<at])
            realm = String(text[text.index(after: at)...])
        } else {
            name = text
            realm = nil
        }
    }

    public var description: String { realm.map { "\(name)@\($0)" } ?? name }

    /// Whether the login name a user gave (`--user`) names this principal: its name part
    /// (`mkhan`), or the whole principal (`mkhan@example.test`), compared without case as
    /// directories compare user ids.
    public func isNamed(_ login: String) -> Bool {
        login.lowercased() == name.lowercased() || login.lowercased() == description.lowercased()
    }
}
