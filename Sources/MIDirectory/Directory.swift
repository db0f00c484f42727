import Foundation
import Logging

/// The console's view of the LDAP directory: log a user in, look users up, list them.
///
/// **Who reads.** With a service account (`ldap.bindDN`), the session's one read connection is
/// bound as that account and does every read: the login lookup, the user's entry and roles,
/// listings, completion, the target checks of `move`. The user's password is checked by a bind
/// that the connection replaces at once with the service account's again, so the user's
/// credentials are never kept bound. Without a service account, the login lookup runs anonymously and, after
/// the user's bind on the same connection, later reads run with the user's own rights (which
/// include whatever anonymous may read).
public final class Directory {
    public let settings: DirectorySettings
    let logger: Logger
    private var connection: LDAPConnection?
    /// Set when the root DSE has been read (for `ldap.userFilter: auto`).
    private var flavor: DirectoryFlavor?
    /// Which roles come from `memberOf`, decided once per session (``rolePlan(on:)``).
    var rolePlanCache: RolePlan?
    /// Role group memberships (normalized DNs, lowercased uids), loaded once per session when a
    /// listing needs them and roles come from the groups.
    var membership: GroupMembership?
    /// With nested groups and `memberOf`: each role's group and every group nested in it.
    var nestedRoleGroups: [Role: Set<String>]?
    /// The configured role groups, normalized once (see `roleGroupKeys`).
    var roleGroupKeysCache: RoleGroupKeys?
    var userCache: [String: DirectoryUser?] = [:]
    /// Active Directory: whether user entries offer `tokenGroups` (nil until the first read),
    /// and the role and crew groups' SIDs they are matched against (``GroupSIDs``).
    var tokenGroupsOffered: Bool?
    var roleSIDsCache: GroupSIDs<Role>?
    var crewSIDsCache: (crews: GroupSIDs<Crew>, allCrews: SID?)?
    /// The crew base has shown at least one crew group this session (``requireVisibleCrews``).
    var crewBaseShowsCrews = false
    /// Set by a login whose password works but expires soon or is in its grace logins: the
    /// console shows it as a warning.
    public private(set) var loginWarning: PasswordWarning?

    public init(settings: DirectorySettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// For the installed (setgid) binary, once `HOME` is out of its environment and before it
    /// gives its group up: libldap reads the system's ldap.conf now and never a user's `ldaprc`
    /// (``LDAPLibrary/defaultsRead``).
    public static func readLibraryDefaultsWhilePrivileged() { LDAPLibrary.defaultsRead }

    /// A connection opened for this session ahead of time, as ``openConnection(_:logger:)``
    /// opens one (the console starts one while it parses its command line): `connect()` takes
    /// it, or its error, instead of opening one.
    public var openedAhead: (() throws -> LDAPConnection)?

    /// The session's read connection, opened and bound as the service account on first use.
    func connect() throws -> LDAPConnection {
        if let connection { return connection }
        let ahead = openedAhead
        openedAhead = nil
        let opened = try ahead?() ?? Self.openConnection(settings, logger: logger)
        connection = opened
        return opened
    }

    /// A read connection for `settings`: opened (TLS negotiated), then bound as the service
    /// account, or left anonymous when none is configured.
    public static func openConnection(_ settings: DirectorySettings, logger: Logger) throws -> LDAPConnection {
        let opened = try LDAPConnection(settings: settings.connection, logger: logger)
        guard settings.hasServiceAccount else { return opened }
        try bindService(opened, settings)
        return opened
    }

    /// Binds `ldap` as the service account and waits for the answer: from its keytab's ticket
    /// (GSSAPI) or with its DN and password.
    private static func bindService(_ ldap: LDAPConnection, _ settings: DirectorySettings) throws {
        let answer: BindAnswer
        if let kerberos = settings.kerberos, kerberos.servesFromKeytab {
            guard let cache = kerberos.serviceCache else {
                throw DirectoryError(.configuration, "ldap.kerberos.serviceKeytab is set but no ticket was got from it")
            }
            answer = try ldap.bindGSSAPI(cache: cache)
        } else if let bindDN = settings.bindDN {
            answer = try ldap.bind(dn: bindDN, password: try servicePassword(settings))
        } else {
            return
        }
        guard answer.code == .success else { throw serviceAccountRefused(settings, answer) }
    }

    /// The service account's re-bind after a user's bind: sent at once, its answer read before
    /// the connection's next request (`LDAPConnection.sendDeferredBind`).
    /// A GSSAPI bind is a conversation of several messages, so a keytab's re-bind is waited for.
    func rebindService(_ ldap: LDAPConnection) throws {
        guard settings.hasServiceAccount else { return }
        if settings.kerberos?.servesFromKeytab == true { return try Self.bindService(ldap, settings) }
        guard let bindDN = settings.bindDN else { return }
        let settings = settings
        try ldap.sendDeferredBind(dn: bindDN, password: try Self.servicePassword(settings)) {
            Self.serviceAccountRefused(settings, BindAnswer(code: $0))
        }
    }

    private static func servicePassword(_ settings: DirectorySettings) throws -> [UInt8] {
        guard let password = settings.bindPassword, !password.isEmpty else {
            throw DirectoryError(.configuration, "ldap.bindDN is set but its password file is empty")
        }
        return password
    }

    private static func serviceAccountRefused(_ settings: DirectorySettings, _ answer: BindAnswer) -> DirectoryError {
        let check = settings.kerberos?.servesFromKeytab == true
            ? "check ldap.kerberos.serviceKeytab and servicePrincipal" + (answer.diagnostic.map { "; the directory said: \($0)" } ?? "")
            : "check ldap.bindPasswordFile"
        return DirectoryError(.serviceBindFailed, code: answer.code,
                              "the directory refused the service account '\(settings.serviceAccountName)' (\(check))")
    }

    /// Authenticates `uid` with `password` and returns the user with their roles.
    ///
    /// Throws `.authenticationFailed` for an empty password (before anything is sent), an unknown
    /// or ambiguous user id, or a wrong password — with one message for all of them, so the
    /// console does not reveal which user ids exist. Throws `.accountUnusable` when the directory
    /// says the account cannot log in (``LoginOutcome``: locked, disabled, expired, must change
    /// its password — never let in, even when the bind itself succeeded), and `.noRole` for a
    /// user in no role group. A password that expires soon or is in its grace logins lets the
    /// user in and leaves ``loginWarning`` set.
    public func authenticate(uid: String, password: [UInt8]) throws -> DirectoryUser {
        let refused = DirectoryError(.authenticationFailed, code: .invalidCredentials,
                                     "authentication failed for '\(uid)': unknown user id or wrong password")
        // An empty password makes a simple bind "unauthenticated" (RFC 4513 5.1.2), which
        // servers accept as success. Refuse it before even connecting.
        guard !password.isEmpty else {
            throw DirectoryError(.authenticationFailed,
                                 "authentication failed for '\(uid)': empty password (refused without contacting the directory)")
        }
        guard !uid.isEmpty else { throw refused }
        if let backslash = uid.firstIndex(of: "\\") {
            let name = uid[uid.index(after: backslash)...]
            throw DirectoryError(.authenticationFailed,
                "log in with your account name alone: '\(name)', not '\(uid)' (DOMAIN\\name is a Windows logon form)"
                + (settings.userPrincipalSuffix.map { ", or as '\(name)@\($0)'" } ?? ""))
        }
        let lookup = userLookup(loginName: uid)
        let ldap = try connect()
        // With a service account the roles are read before the password is checked (below);
        // their queries go out with the user look-up when the user's DN can be expected.
        var expectedRoles = settings.hasServiceAccount ? try sendExpectedRoleQueries(loginName: uid, on: ldap) : nil
        defer { if let expectedRoles { ldap.abandon(expectedRoles.sent) } }
        let candidates: [LDAPEntry]
        do {
            candidates = try findEntries(lookup, on: ldap, limit: 2)
        } catch let error as DirectoryError where !settings.hasServiceAccount
                    && (error.code == .noSuchObject || error.code == .insufficientAccess) {
            // Directories that let users read only their own entry hide the user base from
            // anonymous: the login lookup needs an account with read rights.
            throw DirectoryError(.configuration, code: error.code,
                "cannot look up '\(uid)': the directory hides \(settings.userBase) from anonymous reads; " +
                "configure a service account (ldap.bindDN, ldap.bindPasswordFile; see docs/security.md)")
        }
        if let lookAlikes = LookAlikeIds.find(in: candidates.compactMap { $0.first(settings.userAttribute) }) {
            throw DirectoryError(.authenticationFailed, lookAlikes.message)
        }
        guard candidates.count == 1, let entry = candidates.first else {
            logger.debug("login lookup for a user id matched \(candidates.count) entries")
            throw refused
        }
        // With a service account the roles are read before the password is checked (as the
        // service account, whatever the outcome), so that after the user's bind only the
        // re-bind is left, and nothing waits for its answer. They are used, and a missing role
        // reported, only once the password was right.
        let readEarly = settings.hasServiceAccount
            ? try makeUser(entry, on: ldap, deciding: true, expectedRoles: &expectedRoles) : nil
        let answer = try bindAsUser(dn: entry.dn, password: password, readConnection: ldap)
        switch LoginOutcome(answer) {
        case .accepted(let warning):
            loginWarning = warning
        case .unusable(let state):
            throw DirectoryError(.accountUnusable, code: answer.code, "cannot log in as '\(uid)': \(state.explanation)")
        case .wrongCredentials:
            throw refused
        case .refused(let code, let diagnostic):
            throw DirectoryError(.accountUnusable, code: code,
                                 "cannot log in as '\(uid)': the directory refused the login" + (diagnostic.map { ": \($0)" } ?? ""))
        }
        let user = try readEarly ?? makeUser(entry, on: ldap, deciding: true)
        guard !user.roles.isEmpty else {
            throw DirectoryError(.noRole, "'\(user.uid)' is in none of the console's role groups (foreman, technician, support)")
        }
        userCache[user.uid.lowercased()] = user
        return user
    }

    /// Checks the password with a bind on the read connection. With a service account, the
    /// connection is bound back to the service account at once, whatever the outcome (a second
    /// bind on the same TLS connection: cheaper than a second handshake); without one, it stays
    /// bound as the user, who does the later reads.
    /// The bind asks for the password policy control: the answer then says why an account
    /// cannot log in, or that its password expires soon.
    private func bindAsUser(dn: String, password: [UInt8], readConnection ldap: LDAPConnection) throws -> BindAnswer {
        let answer = try ldap.bind(dn: dn, password: password, askPasswordPolicy: true)
        try rebindService(ldap)
        return answer
    }

    /// Looks a user up by user id (cached for the session); nil when there is no such user
    /// (groups and machine accounts are not users: see `ldap.userFilter`).
    public func user(uid: String) throws -> DirectoryUser? {
        if let cached = userCache[uid.lowercased()] { return cached }
        let ldap = try connect()
        let entries = try findEntries(UserLookup(attribute: settings.userAttribute, value: uid), on: ldap, limit: 2)
        // A move target that looks like another account (`jdоe` beside `jdoe`) is refused by name.
        if let lookAlikes = LookAlikeIds.find(in: entries.compactMap { $0.first(settings.userAttribute) }) {
            throw DirectoryError(.configuration, lookAlikes.message)
        }
        let user = try entries.count == 1 ? makeUser(entries[0], on: ldap, deciding: false) : nil
        userCache[uid.lowercased()] = user
        return user
    }

    /// The attributes read with a user entry; the account state's only with `accountStates`.
    func userAttributes(on ldap: LDAPConnection, accountStates: Bool = true) throws -> [String] {
        userAttributes(for: try directoryFlavor(on: ldap), accountStates: accountStates)
    }

    private func userAttributes(for flavor: DirectoryFlavor, accountStates: Bool = true) -> [String] {
        var attributes = [settings.userAttribute, "cn", "mail"]
        if settings.roleSource != .groups { attributes.append("memberOf") }
        if flavor == .activeDirectory { attributes.append("displayName") }
        if accountStates {
            attributes += flavor == .activeDirectory ? AccountState.entryAttributes.activeDirectory : AccountState.entryAttributes.other
        }
        return attributes
    }

    /// `ldap.userFilter`, or the default for this kind of directory.
    func userFilter(on ldap: LDAPConnection) throws -> String {
        userFilter(for: try directoryFlavor(on: ldap))
    }

    private func userFilter(for flavor: DirectoryFlavor) -> String {
        if let configured = settings.userFilter { return configured }
        return flavor == .activeDirectory ? UserFilter.activeDirectory : UserFilter.standard
    }

    /// The flavor, if the root DSE has been read already.
    var knownFlavor: DirectoryFlavor? { flavor }

    /// Reads the root DSE once: Active Directory announces itself in `supportedCapabilities`.
    func directoryFlavor(on ldap: LDAPConnection) throws -> DirectoryFlavor {
        if let flavor { return flavor }
        return try flavor(answering: Result { try sendRootDSERead(ldap) }, on: ldap)
    }

    private func sendRootDSERead(_ ldap: LDAPConnection) throws -> LDAPConnection.SentSearch {
        try ldap.send(base: "", scope: .base, filter: "(objectClass=*)", attributes: ["supportedCapabilities"])
    }

    /// The flavor from the answer to a root DSE read sent earlier; remembered for the session. A
    /// directory that refuses the read is taken for one other than Active Directory.
    private func flavor(answering rootDSE: Result<LDAPConnection.SentSearch, Error>,
                        on ldap: LDAPConnection) throws -> DirectoryFlavor {
        var capabilities: [String] = []
        do {
            try ldap.receive(try rootDSE.get()) { capabilities += $0.values("supportedCapabilities") }
        } catch let error as DirectoryError where error.kind == .operationFailed {
            logger.info("cannot read the root DSE (\(error)); assuming a directory other than Active Directory")
        }
        let found: DirectoryFlavor = capabilities.contains(DirectoryFlavor.activeDirectoryCapability)
            ? .activeDirectory : .other
        flavor = found
        return found
    }

    /// What a look-up of a user asks the directory for: `attribute` equal to any of the
    /// spellings of a name that look like it (``LookAlikeIds/spellings(of:)``).
    struct UserLookup {
        let attribute: String
        let spellings: [String]

        init(attribute: String, value: String) {
            self.attribute = attribute
            spellings = LookAlikeIds.spellings(of: value)
        }
    }

    /// A login name: a user id, or `name@suffix` looked up by `userPrincipalName` when
    /// `ldap.userPrincipalSuffix` is set and the name ends in it. Needs no connection, so the
    /// login works it out while the connection is still being opened: the first spellings of
    /// a process build the look-alike tables.
    private func userLookup(loginName: String) -> UserLookup {
        if let suffix = settings.userPrincipalSuffix, !suffix.isEmpty,
           loginName.lowercased().hasSuffix("@" + suffix.lowercased()) {
            return UserLookup(attribute: "userPrincipalName", value: loginName)
        }
        return UserLookup(attribute: settings.userAttribute, value: loginName)
    }

    /// The entries `lookup` matches (at most `limit`). The session's first look-up
    /// (the login's) does not wait for the root DSE first: it is sent together with the root DSE
    /// read, as for a directory other than Active Directory, and used if the root DSE agrees; one
    /// round trip instead of two. For Active Directory it is abandoned and sent again.
    private func findEntries(_ lookup: UserLookup, on ldap: LDAPConnection, limit: Int) throws -> [LDAPEntry] {
        let known: DirectoryFlavor
        if let flavor {
            known = flavor
        } else {
            let rootDSE = Result { try sendRootDSERead(ldap) }
            let guess = try sendUserSearch(lookup, flavor: .other, on: ldap)
            do {
                known = try flavor(answering: rootDSE, on: ldap)
            } catch {
                ldap.abandon(guess)
                throw error
            }
            if known == .other { return try receiveEntries(guess, limit: limit, on: ldap) }
            ldap.abandon(guess)
        }
        return try receiveEntries(sendUserSearch(lookup, flavor: known, on: ldap), limit: limit, on: ldap)
    }

    private func sendUserSearch(_ lookup: UserLookup, flavor: DirectoryFlavor,
                                on ldap: LDAPConnection) throws -> LDAPConnection.SentSearch {
        // Every spelling of the value that looks like it (as given, composed, decomposed, with a
        // letter of another script): a directory that compares ids byte for byte (Active
        // Directory), and any directory for another script's letters, then returns look-alike
        // entries too, so that two accounts whose ids look alike are refused rather than merged.
        let attribute = lookup.attribute
        let match = lookup.spellings.count == 1 ? "(\(attribute)=\(FilterEscaping.escape(lookup.spellings[0])))"
            : "(|" + lookup.spellings.map { "(\(attribute)=\(FilterEscaping.escape($0)))" }.joined() + ")"
        return try ldap.send(base: settings.userBase, scope: .subtree,
                             filter: "(&\(userFilter(for: flavor))\(match))",
                             attributes: userAttributes(for: flavor))
    }

    private func receiveEntries(_ sent: LDAPConnection.SentSearch, limit: Int, on ldap: LDAPConnection) throws -> [LDAPEntry] {
        var found: [LDAPEntry] = []
        do {
            try ldap.receive(sent) {
                found.append($0)
                if found.count >= limit { throw StopSearch() }
            }
        } catch is StopSearch {}
        return found
    }

    func makeUser(_ entry: LDAPEntry, on ldap: LDAPConnection, deciding: Bool) throws -> DirectoryUser {
        var none: ExpectedRoleQueries?
        return try makeUser(entry, on: ldap, deciding: deciding, expectedRoles: &none)
    }

    func makeUser(_ entry: LDAPEntry, on ldap: LDAPConnection, deciding: Bool,
                  expectedRoles: inout ExpectedRoleQueries?) throws -> DirectoryUser {
        user(from: entry, roles: try roles(of: entry, on: ldap, deciding: deciding, expected: &expectedRoles))
    }

    func user(from entry: LDAPEntry, roles: [Role]) -> DirectoryUser {
        // Roles come filtered from Role.allCases: already ordered, each once.
        DirectoryUser(uid: entry.first(settings.userAttribute) ?? "", dn: entry.dn,
                      name: entry.first("displayName") ?? entry.first("cn") ?? "", mail: entry.first("mail"), orderedRoles: roles,
                      accountState: AccountState(entry: entry))
    }
}

/// What kind of server the directory is, from its root DSE.
public enum DirectoryFlavor: Sendable, Equatable {
    case activeDirectory, other
    /// `LDAP_CAP_ACTIVE_DIRECTORY_OID` in the root DSE's `supportedCapabilities`.
    static let activeDirectoryCapability = "1.2.840.113556.1.4.800"
}

/// Thrown from a search callback to stop early; never escapes `Directory`.
struct StopSearch: Error {}
