/// Logging in with a Kerberos ticket (`ldap.kerberos.login`): a SASL GSSAPI bind as the
/// ticket's principal instead of a password bind; roles and crews are read as after a password.
extension Directory {
    /// Authenticates the holder of a valid ticket for `principal` (the caller read it from the
    /// user's credential cache, ``Kerberos/ticket()``) and returns the user with their roles.
    ///
    /// The directory user is the principal's: on Active Directory the entry whose
    /// `userPrincipalName` is the principal, or, without one, whose `sAMAccountName` is its name
    /// part (AD's implicit principal); elsewhere the entry whose `ldap.userAttribute` is the
    /// name part. The bind proves the ticket to the server, and the principal the bind
    /// authenticated must be the one looked up.
    public func authenticate(ticket principal: KerberosPrincipal) throws -> DirectoryUser {
        let ldap = try connect()
        // Without a service account the look-up needs the user's own rights: bind first.
        if !settings.hasServiceAccount { try bindAsTicketHolder(principal, on: ldap) }
        let flavor = try directoryFlavor(on: ldap)
        let name = FilterEscaping.escape(principal.name)
        let condition = flavor == .activeDirectory
            ? "(|(userPrincipalName=\(FilterEscaping.escape(principal.description)))"
                + "(&(!(userPrincipalName=*))(sAMAccountName=\(name))))"
            : "(\(settings.userAttribute)=\(name))"
        var candidates: [LDAPEntry] = []
        try ldap.search(base: settings.userBase, scope: .subtree, filter: "(&\(try userFilter(on: ldap))\(condition))",
                        attributes: try userAttributes(on: ldap), pageSize: 0) { candidates.append($0) }
        guard candidates.count == 1, let entry = candidates.first else {
            throw DirectoryError(.authenticationFailed,
                "no single directory user for the Kerberos principal '\(principal)' " +
                "(\(candidates.count) entries under \(settings.userBase) match)")
        }
        let user: DirectoryUser
        if settings.hasServiceAccount {
            // Roles read as the service account, then the ticket proved, then the service
            // account bound again: the user's rights are never kept bound.
            let early = try makeUser(entry, on: ldap, deciding: true)
            try bindAsTicketHolder(principal, on: ldap)
            user = early
        } else {
            user = try makeUser(entry, on: ldap, deciding: true)
        }
        if let state = user.accountState {
            throw DirectoryError(.accountUnusable, "cannot log in as '\(user.uid)': \(state.explanation)")
        }
        guard !user.roles.isEmpty else {
            throw DirectoryError(.noRole, "'\(user.uid)' is in none of the console's role groups (foreman, technician, support)")
        }
        userCache[user.uid.lowercased()] = user
        return user
    }

    /// The GSSAPI bind with the user's own ticket; with a service account, the connection is
    /// bound back to it at once.
    private func bindAsTicketHolder(_ principal: KerberosPrincipal, on ldap: LDAPConnection) throws {
        let answer = try ldap.bindGSSAPI(cache: nil)
        if settings.hasServiceAccount { try rebindService(ldap) }
        guard answer.code == .success else {
            throw DirectoryError(.authenticationFailed, code: answer.code,
                "the directory refused the Kerberos login of '\(principal)'" + (answer.diagnostic.map { ": \($0)" } ?? "")
                + " (run kinit for a new ticket, or log in with your password)")
        }
        guard let identity = answer.identity, identity.lowercased() == principal.description.lowercased() else {
            throw DirectoryError(.authenticationFailed,
                "the Kerberos login authenticated '\(answer.identity ?? "nobody")', not '\(principal)'")
        }
    }
}
