/// Everything the directory client needs, already validated and with the service account's
/// password read from its file (never from the config file itself).
public struct DirectorySettings: Sendable {
    public var connection: ConnectionSettings
    public var baseDN: String
    public var userBase: String
    /// The attribute a user id is looked up by (default `uid`; `sAMAccountName` on Active Directory).
    public var userAttribute: String
    /// Service account for every directory read; nil reads anonymously until login, then as the user.
    public var bindDN: String?
    public var bindPassword: [UInt8]?
    /// Group DN for each role.
    public var groups: [Role: String]
    /// Where a user's roles are read from (`ldap.roleSource`).
    public var roleSource: RoleSource
    /// Membership through nested groups, with Active Directory's `LDAP_MATCHING_RULE_IN_CHAIN`
    /// (`ldap.nestedGroups`). Off: direct members only.
    public var nestedGroups: Bool
    /// Which entries are users (`ldap.userFilter`); nil picks one by the directory (`auto`):
    /// `UserFilter.activeDirectory` or `UserFilter.standard`.
    public var userFilter: String?
    /// With a suffix (`example.test`), a login name `name@example.test` is looked up by
    /// `userPrincipalName` (`ldap.userPrincipalSuffix`, Active Directory).
    public var userPrincipalSuffix: String?
    /// Where crews come from (`teams`); nil: no crews.
    public var teams: CrewSettings?
    /// Ticket logins and the service account's keytab (`ldap.kerberos`); nil: passwords only.
    public var kerberos: KerberosSettings?

    public init(connection: ConnectionSettings, baseDN: String, userBase: String, userAttribute: String = "uid",
                bindDN: String?, bindPassword: [UInt8]?, groups: [Role: String],
                roleSource: RoleSource = .auto, nestedGroups: Bool = false, userFilter: String? = nil,
                userPrincipalSuffix: String? = nil, teams: CrewSettings? = nil) {
        self.connection = connection
        self.baseDN = baseDN
        self.userBase = userBase
        self.userAttribute = userAttribute
        self.bindDN = bindDN
        self.bindPassword = bindPassword
        self.groups = groups
        self.roleSource = roleSource
        self.nestedGroups = nestedGroups
        self.userFilter = userFilter
        self.userPrincipalSuffix = userPrincipalSuffix
        self.teams = teams
    }

    /// True when a service account is configured (a DN with its password, or a Kerberos keytab):
    /// it does every read, the user's bind only proves who they are.
    public var hasServiceAccount: Bool { !(bindDN ?? "").isEmpty || kerberos?.servesFromKeytab == true }

    /// The service account's name for messages: its DN, or its Kerberos principal.
    var serviceAccountName: String {
        if kerberos?.servesFromKeytab == true { return kerberos?.servicePrincipal ?? "" }
        return bindDN ?? ""
    }
}

/// Where roles come from (`ldap.roleSource`).
public enum RoleSource: String, Sendable, CaseIterable {
    /// `memberOf` when the directory's entries carry it, the groups otherwise.
    case auto
    /// The user entry's `memberOf` values (OpenLDAP's memberof overlay; Active Directory always):
    /// roles come with the entry, and a listing never reads a group's member list.
    case memberOf
    /// The role group entries: `member`, `uniqueMember` (DNs) or `memberUid` (user ids).
    case groups
}

/// The default `ldap.userFilter` values.
public enum UserFilter {
    /// Active Directory: people, not groups or machine accounts (which carry `sAMAccountName` too).
    public static let activeDirectory = "(&(objectCategory=person)(objectClass=user))"
    /// Other directories.
    public static let standard = "(objectClass=inetOrgPerson)"
}
