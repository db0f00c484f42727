import Foundation
import Logging

/// The console's view of the LDAP directory: log a user in, look users up, list them.
///
/// Login is search-then-bind on one connection: bind as the service account (anonymously when
/// none is configured), find the user by `userAttribute` with the value escaped, require exactly
/// one match, then bind as that DN with the user's password. After login the connection carries
/// the user's own identity, so later reads run with that user's directory rights.
public final class Directory {
    public let settings: DirectorySettings
    private let logger: Logger
    private var connection: LDAPConnection?
    /// Memberships of the role groups, loaded once per session when a listing needs them.
    private var membership: [Role: Set<String>]?
    private var userCache: [String: DirectoryUser?] = [:]

    public init(settings: DirectorySettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    /// The session's connection, opened and bound as the service account on first use.
    private func connect() throws -> LDAPConnection {
        if let connection { return connection }
        let opened = try LDAPConnection(settings: settings.connection, logger: logger)
        try bindService(opened)
        connection = opened
        return opened
    }

    /// Binds as the service account, or stays anonymous when none is configured.
    private func bindService(_ ldap: LDAPConnection) throws {
        guard let bindDN = settings.bindDN, !bindDN.isEmpty else { return }
        guard let password = settings.bindPassword, !password.isEmpty else {
            throw DirectoryError(.configuration, "ldap.bindDN is set but its password file is empty")
        }
        let code = ldap.simpleBind(dn: bindDN, password: password)
        try ldap.checkReachable(code)
        guard code == .success else {
            throw DirectoryError(.serviceBindFailed, code: code,
                                 "the directory refused the service account '\(bindDN)' (check ldap.bindPasswordFile)")
        }
    }

    /// Authenticates `uid` with `password` and returns the user with their roles.
    ///
    /// Throws `.authenticationFailed` for an empty password (before anything is sent), an unknown
    /// or ambiguous user id, or a wrong password — with one message for all of them, so the
    /// console does not reveal which user ids exist. Throws `.noRole` for a user in no role group.
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
        let ldap = try connect()
        let candidates = try findEntries(uid: uid, on: ldap, limit: 2)
        guard candidates.count == 1, let entry = candidates.first else {
            logger.debug("login lookup for a user id matched \(candidates.count) entries")
            throw refused
        }
        let code = ldap.simpleBind(dn: entry.dn, password: password)
        try ldap.checkReachable(code)
        guard code == .success else {
            if code != .invalidCredentials { logger.info("user bind refused with LDAP code \(code.rawValue)") }
            throw refused
        }
        let user = try makeUser(entry, on: ldap)
        guard !user.roles.isEmpty else {
            throw DirectoryError(.noRole, "'\(uid)' is in none of the console's role groups (foreman, technician, support)")
        }
        userCache[uid.lowercased()] = user
        return user
    }

    /// Looks a user up by user id (cached for the session); nil when there is no such user.
    public func user(uid: String) throws -> DirectoryUser? {
        if let cached = userCache[uid.lowercased()] { return cached }
        let ldap = try connect()
        let entries = try findEntries(uid: uid, on: ldap, limit: 2)
        let user = try entries.count == 1 ? makeUser(entries[0], on: ldap) : nil
        userCache[uid.lowercased()] = user
        return user
    }

    private var userAttributes: [String] { [settings.userAttribute, "cn", "mail"] }

    private func findEntries(uid: String, on ldap: LDAPConnection, limit: Int) throws -> [LDAPEntry] {
        let filter = "(\(settings.userAttribute)=\(FilterEscaping.escape(uid)))"
        var found: [LDAPEntry] = []
        do {
            try ldap.search(base: settings.userBase, scope: .subtree, filter: filter, attributes: userAttributes) {
                found.append($0)
                if found.count >= limit { throw StopSearch() }
            }
        } catch is StopSearch {}
        return found
    }

    private func makeUser(_ entry: LDAPEntry, on ldap: LDAPConnection) throws -> DirectoryUser {
        let roles: [Role]
        if let membership {
            let key = DistinguishedName.normalized(entry.dn)
            roles = Role.allCases.filter { membership[$0]?.contains(key) == true }
        } else {
            roles = try rolesByQuery(dn: entry.dn, on: ldap)
        }
        return user(from: entry, roles: roles)
    }

    private func user(from entry: LDAPEntry, roles: [Role]) -> DirectoryUser {
        // Callers pass roles filtered from Role.allCases: already ordered, each once.
        DirectoryUser(uid: entry.first(settings.userAttribute) ?? "", dn: entry.dn,
                      name: entry.first("cn") ?? "", mail: entry.first("mail"), orderedRoles: roles)
    }

    /// The roles of one user in one request: the groups under the base DN that list the DN as a
    /// `member` (the server matches the DN, escaping and case included), compared with the
    /// configured group DNs. A role group outside the base DN gets its own base-scope check.
    private func rolesByQuery(dn: String, on ldap: LDAPConnection) throws -> [Role] {
        let memberFilter = "(member=\(FilterEscaping.escape(dn)))"
        let base = DistinguishedName.normalized(settings.baseDN)
        var wanted: [String: Role] = [:]
        var outside: [(Role, String)] = []
        for (role, group) in settings.groups {
            let key = DistinguishedName.normalized(group)
            if key.hasSuffix("," + base) || key == base { wanted[key] = role } else { outside.append((role, group)) }
        }
        var roles: [Role] = []
        if !wanted.isEmpty {
            try ldap.search(base: settings.baseDN, scope: .subtree, filter: "(&(objectClass=groupOfNames)\(memberFilter))",
                            attributes: ["1.1"]) { entry in
                if let role = wanted[DistinguishedName.normalized(entry.dn)] { roles.append(role) }
            }
        }
        for (role, group) in outside {
            do {
                try ldap.search(base: group, scope: .base, filter: memberFilter, attributes: ["1.1"]) { _ in roles.append(role) }
            } catch let error as DirectoryError where error.code == .noSuchObject {
                logger.warning("role group for \(role.rawValue) does not exist: \(group)")
            }
        }
        return roles
    }

    /// Reads every role group's members once (normalized DNs).
    private func loadMembership(on ldap: LDAPConnection) throws -> [Role: Set<String>] {
        if let membership { return membership }
        var result: [Role: Set<String>] = [:]
        for (role, group) in settings.groups {
            var members = Set<String>()
            do {
                try ldap.forEachValue(of: "member", inEntry: group) { member in
                    members.insert(DistinguishedName.normalized(bytes: member))
                }
            } catch let error as DirectoryError where error.code == .noSuchObject {
                logger.warning("role group for \(role.rawValue) does not exist: \(group)")
            }
            result[role] = members
        }
        membership = result
        return result
    }

    /// Streams the directory's users under `userBase`, optionally those whose user id or name
    /// matches `pattern` and/or who hold `role`. Paged, so the server's size limit does not cut
    /// the listing short; each user is handed to `body` as it arrives.
    public func forEachUser(matching pattern: Glob?, role: Role?, _ body: (DirectoryUser) throws -> Void) throws {
        let ldap = try connect()
        let groups = try loadMembership(on: ldap)
        let attribute = settings.userAttribute
        let filter: String
        if let pattern {
            let value = FilterEscaping.substringFilterValue(forGlob: pattern.pattern)
            filter = "(|(\(attribute)=\(value))(cn=\(value)))"
        } else {
            filter = "(\(attribute)=*)"
        }
        try ldap.search(base: settings.userBase, scope: .subtree, filter: filter, attributes: userAttributes) { entry in
            let key = DistinguishedName.normalized(entry.dn)
            let roles = Role.allCases.filter { groups[$0]?.contains(key) == true }
            if let role, !roles.contains(role) { return }
            let user = user(from: entry, roles: roles)
            if let pattern, !pattern.matches(user.uid), !pattern.matches(user.name) { return }
            try body(user)
        }
    }
}

/// Thrown from a search callback to stop early; never escapes `Directory`.
private struct StopSearch: Error {}
