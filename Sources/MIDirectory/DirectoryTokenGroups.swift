import Foundation

/// Active Directory memberships from `tokenGroups`, with `ldap.nestedGroups`: the DC computes the
/// SID of every security group a user is in, at any depth, on a base read of the user's own
/// entry; a role or crew is the user's when its group's `objectSid` is among them. One read per
/// user whatever the groups hold, where `LDAP_MATCHING_RULE_IN_CHAIN` makes the DC walk the
/// nested groups for every query (seconds with groups of thousands). SSSD reads AD memberships
/// the same way. The in-chain queries remain where user entries offer no `tokenGroups`, and for
/// distribution groups, which `tokenGroups` does not list.
extension Directory {
    /// A security identifier as the directory sends it (binary `objectSid`, `tokenGroups`).
    typealias SID = [UInt8]

    /// Groups' SIDs, read once and kept for `teams.refreshSeconds` (the default without crews):
    /// a group made or replaced since is seen after that, or at once on a forced crew refresh.
    struct GroupSIDs<Key> {
        let groups: [(key: Key, sid: SID)]
        /// Every group is a security group: `tokenGroups` can decide for all of them.
        let allSecurity: Bool
        let readAt: TimeInterval

        var isFresh: Bool { Directory.uptime() - readAt < lifetime }
        let lifetime: TimeInterval

        func keys(in tokens: Set<SID>) -> [Key] { groups.filter { tokens.contains($0.sid) }.map(\.key) }
    }

    static func uptime() -> TimeInterval { ProcessInfo.processInfo.systemUptime }

    private var groupSIDLifetime: TimeInterval {
        TimeInterval(settings.teams?.refreshSeconds ?? CrewSettings.defaultRefreshSeconds)
    }

    /// The SIDs of every security group the entry at `dn` is in, at any depth, or nil where
    /// they do not decide: nested groups off, a directory other than Active Directory, or entries
    /// that offer no `tokenGroups` (remembered for the session).
    func tokenGroups(ofEntryAt dn: String, on ldap: LDAPConnection) throws -> Set<SID>? {
        guard settings.nestedGroups, tokenGroupsOffered != false,
              try directoryFlavor(on: ldap) == .activeDirectory else { return nil }
        var sids: Set<SID> = []
        try ldap.searchBytes(base: dn, scope: .base, filter: "(objectClass=*)", attributes: ["tokenGroups"]) { _, values in
            sids.formUnion(values[0])
        }
        // Every account is in its primary group at least: an empty answer means the DC computes
        // no tokenGroups, or hides them from this reader.
        guard !sids.isEmpty else {
            logger.info("user entries show no tokenGroups; nested memberships are read with LDAP_MATCHING_RULE_IN_CHAIN")
            tokenGroupsOffered = false
            return nil
        }
        tokenGroupsOffered = true
        return sids
    }

    /// The user's roles from their `tokenGroups`, or nil where those do not decide
    /// (``tokenGroups(ofEntryAt:on:)``, or a role group that is a distribution group).
    func rolesFromTokenGroups(of entry: LDAPEntry, on ldap: LDAPConnection) throws -> [Role]? {
        guard settings.nestedGroups, try directoryFlavor(on: ldap) == .activeDirectory else { return nil }
        let groups = try roleGroupSIDs(on: ldap)
        guard groups.allSecurity, let tokens = try tokenGroups(ofEntryAt: entry.dn, on: ldap) else { return nil }
        let roles = groups.keys(in: tokens)
        return Role.allCases.filter(roles.contains)
    }

    /// The role groups' SIDs (``GroupSIDs``); a group that does not exist is left out, with a warning.
    func roleGroupSIDs(on ldap: LDAPConnection) throws -> GroupSIDs<Role> {
        if let roleSIDsCache, roleSIDsCache.isFresh { return roleSIDsCache }
        var groups: [(key: Role, sid: SID)] = []
        var allSecurity = true
        for (role, dn) in roleGroups {
            guard let group = try groupSID(dn, on: ldap) else {
                logger.warning("role group for \(role.rawValue) does not exist: \(dn)")
                continue
            }
            groups.append((role, group.sid))
            allSecurity = allSecurity && group.security
        }
        let read = GroupSIDs(groups: groups, allSecurity: allSecurity, readAt: Self.uptime(), lifetime: groupSIDLifetime)
        roleSIDsCache = read
        return read
    }

    /// The crews under `base` with their SIDs (every group entry there), and the all-teams
    /// group's SID. Read again when `fresh` (a session's crew refresh) or older than
    /// `teams.refreshSeconds`.
    func crewGroupSIDs(base: String, allCrewsGroup: String?, fresh: Bool,
                       on ldap: LDAPConnection) throws -> (crews: GroupSIDs<Crew>, allCrews: SID?) {
        if !fresh, let crewSIDsCache, crewSIDsCache.crews.isFresh { return crewSIDsCache }
        var groups: [(key: Crew, sid: SID)] = []
        var allSecurity = true
        try ldap.searchBytes(base: base, scope: .subtree, filter: Self.groupFilter,
                             attributes: ["cn", "objectSid", "groupType"]) { dn, values in
            guard let sid = values[1].first else { return }
            let name = values[0].first.map { String(decoding: $0, as: UTF8.self) } ?? dn
            groups.append((Crew(name: name, dn: dn), sid))
            allSecurity = allSecurity && Self.isSecurityGroup(values[2].first)
        }
        var allCrews: SID?
        if let allCrewsGroup {
            let group = try groupSID(allCrewsGroup, on: ldap)
            if group == nil { logger.warning("teams.allTeamsGroup does not exist: \(allCrewsGroup)") }
            allCrews = group?.sid
            allSecurity = allSecurity && group?.security != false
        }
        let read = (GroupSIDs(groups: groups, allSecurity: allSecurity, readAt: Self.uptime(), lifetime: groupSIDLifetime),
                    allCrews)
        crewSIDsCache = read
        return read
    }

    /// The group's SID and whether it is a security group; nil when there is no such entry.
    private func groupSID(_ dn: String, on ldap: LDAPConnection) throws -> (sid: SID, security: Bool)? {
        var found: (SID, Bool)?
        do {
            try ldap.searchBytes(base: dn, scope: .base, filter: "(objectClass=*)", attributes: ["objectSid", "groupType"]) { _, values in
                if let sid = values[0].first { found = (sid, Self.isSecurityGroup(values[1].first)) }
            }
        } catch let error as DirectoryError where error.code == .noSuchObject {
            return nil
        }
        return found
    }

    /// `groupType` (a signed 32-bit decimal): bit 31 marks a security group. An entry without
    /// one is taken for a distribution group, so that `tokenGroups` never decides for it.
    static func isSecurityGroup(_ groupType: [UInt8]?) -> Bool {
        guard let groupType, let value = Int64(String(decoding: groupType, as: UTF8.self)) else { return false }
        return UInt32(truncatingIfNeeded: value) & 0x8000_0000 != 0
    }
}
