/// Logging in with a Kerberos ticket (`ldap.kerberos.login`): a SASL GSSAPI bind as the
/// ticket's principal instead of a password bind; roles and crews are read as after a password.
extension Directory {
    /// Authenticates the holder of a valid ticket for `principal` (the caller read it from the
    /// user's credential cache, ``Kerberos/ticket()``) and returns the user with their roles.
    ///
    /// The principal's realm must be one whose principals are the directory's users
    /// (`ldap.kerberos.realms`, else krb5.conf's default realm): a realm the directory's realm
    /// trusts has people of its own, whose names may be user ids here. The user is then the one
    /// the directory says it authenticated: its answer to "Who am I?" must be a user entry under
    /// `ldap.userBase` (OpenLDAP maps principals with `authz-regexp`; an unmapped one stays a
    /// `cn=gssapi,cn=auth` DN and is refused), or Active Directory's `DOMAIN\name`, the entry with
    /// that `sAMAccountName` whose `msDS-PrincipalName` is the same. A server without the
    /// operation (Samba) names the principal it authenticated through SASL; that must be the
    /// ticket's, and the user is the principal's: on Active Directory the entry whose
    /// `userPrincipalName` is the principal, or, without one, whose `sAMAccountName` is its name
    /// part; elsewhere the entry whose `ldap.userAttribute` is the name part.
    public func authenticate(ticket principal: KerberosPrincipal) throws -> DirectoryUser {
        try requireHomeRealm(principal)
        let ldap = try connect()
        // Bound as the ticket holder only while the directory is asked whom it authenticated;
        // with a service account the connection is bound back to it before anything is read.
        let identity = try bindAsTicketHolder(principal, on: ldap)
        let entry = try entry(of: identity, principal: principal, on: ldap)
        let user = try makeUser(entry, on: ldap, deciding: true)
        if let state = user.accountState {
            throw DirectoryError(.accountUnusable, "cannot log in as '\(user.uid)': \(state.explanation)")
        }
        guard !user.roles.isEmpty else {
            throw DirectoryError(.noRole, "'\(user.uid)' is in none of the console's role groups (foreman, technician, support)")
        }
        userCache[user.uid.lowercased()] = user
        return user
    }

    /// Refuses a principal of a realm whose principals are not the directory's users, before
    /// anything is sent.
    private func requireHomeRealm(_ principal: KerberosPrincipal) throws {
        let configured = settings.kerberos?.realms ?? []
        let realms = configured.isEmpty ? [try Kerberos.defaultRealm()] : configured
        guard let realm = principal.realm, realms.contains(realm) else {
            let source = configured.isEmpty ? "krb5.conf's default_realm" : "ldap.kerberos.realms"
            throw DirectoryError(.authenticationFailed,
                "the Kerberos principal '\(principal)' is of the realm \(principal.realm ?? "(none)"), not of the "
                + "directory's (\(realms.joined(separator: ", ")), from \(source)): log in with your password")
        }
    }

    /// The GSSAPI bind with the user's own ticket, and whom the directory says it authenticated;
    /// with a service account, the connection is bound back to it at once.
    private func bindAsTicketHolder(_ principal: KerberosPrincipal, on ldap: LDAPConnection) throws -> KerberosIdentity {
        let answer = try ldap.bindGSSAPI(cache: nil)
        guard answer.code == .success else {
            if settings.hasServiceAccount { try rebindService(ldap) }
            throw DirectoryError(.authenticationFailed, code: answer.code,
                "the directory refused the Kerberos login of '\(principal)'" + (answer.diagnostic.map { ": \($0)" } ?? "")
                + " (run kinit for a new ticket, or log in with your password)")
        }
        let whoAmI: String?
        do {
            whoAmI = try ldap.whoAmI()
        } catch {
            if settings.hasServiceAccount { try rebindService(ldap) }
            throw error
        }
        if settings.hasServiceAccount { try rebindService(ldap) }
        if let whoAmI { return KerberosIdentity(whoAmI: whoAmI) }
        return .principal(answer.identity ?? "")
    }

    /// The user entry of the identity the directory authenticated.
    private func entry(of identity: KerberosIdentity, principal: KerberosPrincipal,
                       on ldap: LDAPConnection) throws -> LDAPEntry {
        let flavor = try directoryFlavor(on: ldap)
        let base: String, scope: LDAPConnection.Scope, condition: String
        var check: (LDAPEntry) -> Bool = { _ in true }
        switch identity {
        case .entry(let dn):
            guard DistinguishedName.isBelow(dn, settings.userBase) else { throw notAUser(principal, identity) }
            (base, scope, condition) = (dn, .base, "")
        case .account(let domain, let name):
            let attribute = flavor == .activeDirectory ? "sAMAccountName" : settings.userAttribute
            (base, scope, condition) = (settings.userBase, .subtree, "(\(attribute)=\(FilterEscaping.escape(name)))")
            if let domain, flavor == .activeDirectory {
                // The same name in a trusted domain is another account.
                let expected = "\(domain)\\\(name)".lowercased()
                check = { $0.first("msDS-PrincipalName")?.lowercased() == expected }
            }
        case .principal(let authenticated):
            guard authenticated.lowercased() == principal.description.lowercased() else {
                throw DirectoryError(.authenticationFailed,
                    "the Kerberos login authenticated '\(authenticated.isEmpty ? "nobody" : authenticated)', not '\(principal)'")
            }
            let name = FilterEscaping.escape(principal.name)
            condition = flavor == .activeDirectory
                ? "(|(userPrincipalName=\(FilterEscaping.escape(principal.description)))"
                    + "(&(!(userPrincipalName=*))(sAMAccountName=\(name))))"
                : "(\(settings.userAttribute)=\(name))"
            (base, scope) = (settings.userBase, .subtree)
        case .anonymous:
            throw notAUser(principal, identity)
        }
        var attributes = try userAttributes(on: ldap)
        if case .account(_?, _) = identity, flavor == .activeDirectory { attributes.append("msDS-PrincipalName") }
        var candidates: [LDAPEntry] = []
        do {
            try ldap.search(base: base, scope: scope, filter: "(&\(try userFilter(on: ldap))\(condition))",
                            attributes: attributes, pageSize: 0) { candidates.append($0) }
        } catch let error as DirectoryError where error.code == .noSuchObject {
            throw notAUser(principal, identity)
        }
        candidates = candidates.filter(check)
        guard candidates.count == 1, let entry = candidates.first else {
            if case .principal = identity {
                throw DirectoryError(.authenticationFailed,
                    "no single directory user for the Kerberos principal '\(principal)' " +
                    "(\(candidates.count) entries under \(settings.userBase) match)")
            }
            throw notAUser(principal, identity)
        }
        return entry
    }

    private func notAUser(_ principal: KerberosPrincipal, _ identity: KerberosIdentity) -> DirectoryError {
        DirectoryError(.authenticationFailed,
            "the directory authenticated the Kerberos principal '\(principal)' as '\(identity.description)', "
            + "which is no user under \(settings.userBase): the directory maps no user to this principal")
    }
}
