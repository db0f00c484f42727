/// Whom the directory says a GSSAPI bind authenticated: its answer to "Who am I?" (RFC 4532),
/// or, from a server without that operation (Samba), SASL's record of the principal.
enum KerberosIdentity: Equatable {
    /// `dn:<DN>`: the entry the server mapped the principal to (OpenLDAP's authz-regexp), or
    /// the principal's own `cn=gssapi,cn=auth` DN when nothing maps it.
    case entry(String)
    /// `u:<name>`: an account name; Active Directory's is `DOMAIN\name`.
    case account(domain: String?, name: String)
    /// The principal as SASL recorded it (no Who am I? answer).
    case principal(String)
    /// An empty answer: the connection is anonymous.
    case anonymous

    /// The identity from a Who am I? answer (RFC 4532 section 2: an authzId, RFC 4513 5.2.1.8).
    init(whoAmI answer: String) {
        if answer.hasPrefix("dn:") {
            self = .entry(String(answer.dropFirst(3)))
        } else if answer.hasPrefix("u:") {
            let name = answer.dropFirst(2)
            if let backslash = name.lastIndex(of: "\\") {
                self = .account(domain: String(name[..<backslash]), name: String(name[name.index(after: backslash)...]))
            } else {
                self = .account(domain: nil, name: String(name))
            }
        } else if answer.isEmpty {
            self = .anonymous
        } else {
            self = .principal(answer)
        }
    }

    /// As the directory wrote it, for messages.
    var description: String {
        switch self {
        case .entry(let dn): dn
        case .account(let domain?, let name): "\(domain)\\\(name)"
        case .account(nil, let name): name
        case .principal(let principal): principal
        case .anonymous: "nobody (an anonymous connection)"
        }
    }
}
