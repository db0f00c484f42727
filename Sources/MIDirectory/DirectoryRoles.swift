import Foundation

/// A user's roles: from the entry's `memberOf` values when the directory keeps them, otherwise
/// from the role group entries, whatever their object class — `member` (groupOfNames, Active
/// Directory's `group`), `uniqueMember` (groupOfUniqueNames) or `memberUid` (posixGroup, matched
/// against the user id). No filter here names an object class.
extension Directory {
    /// Active Directory's `LDAP_MATCHING_RULE_IN_CHAIN`: membership through nested groups.
    static let inChain = "1.2.840.113556.1.4.1941"

    /// The configured role groups, normalized once: `keys[i]` is the group of `roles[i]`, in the
    /// order of `Role.allCases`.
    struct RoleGroupKeys {
        let roles: [Role]
        let keys: [String]
    }

    var roleGroupKeys: RoleGroupKeys {
        if let roleGroupKeysCache { return roleGroupKeysCache }
        let groups = Role.allCases.compactMap { role in settings.groups[role].map { (role, DistinguishedName.normalized($0)) } }
        let made = RoleGroupKeys(roles: groups.map(\.0), keys: groups.map(\.1))
        roleGroupKeysCache = made
        return made
    }

    /// Role queries the login sends together with its user look-up, for the DN the user has in
    /// the usual layout (`uid=<user id>,<ldap.userBase>`), before it knows the entry: one round
    /// trip fewer. They answer for the entry found only if it has that DN and that user id;
    /// otherwise (another layout, roles from `memberOf`) they are abandoned and, where the
    /// groups decide, the queries sent again for the real entry.
    struct ExpectedRoleQueries {
        let dn: String
        let uid: String
        let sent: LDAPConnection.SentBaseMatches

        func answer(for entry: LDAPEntry, userAttribute: String) -> Bool {
            entry.first(userAttribute) == uid && DistinguishedName.normalized(entry.dn) == DistinguishedName.normalized(dn)
        }
    }

    /// The login's role queries sent ahead (see ``ExpectedRoleQueries``), or nil where they
    /// would not be used: roles from `memberOf` (configured, or `auto` on Active Directory),
    /// group members already read, or a login name that is not a plain user id (a DN would need
    /// escaping; a `name@suffix` is looked up by another attribute).
    func sendExpectedRoleQueries(loginName: String, on ldap: LDAPConnection) throws -> ExpectedRoleQueries? {
        // Nested groups (Active Directory) are read from tokenGroups, or in-chain queries whose
        // cost grows with the groups: neither is sent ahead.
        guard settings.roleSource != .memberOf, !(settings.roleSource == .auto && knownFlavor == .activeDirectory),
              !settings.nestedGroups, membership == nil,
              !loginName.isEmpty, loginName.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }),
              loginName.first != "-" else { return nil }
        let dn = "\(settings.userAttribute)=\(loginName),\(settings.userBase)"
        return ExpectedRoleQueries(dn: dn, uid: loginName, sent: try sendRoleQueries(dn: dn, uid: loginName, on: ldap))
    }

    /// The roles of one user entry. With a service account the login (`deciding`) asks the role
    /// groups themselves (its queries went out with the user look-up): the group entries are
    /// the authority, `memberOf` only a copy the server may keep for some groups and not others.
    /// Otherwise roles follow the session's ``rolePlan(on:)``: each role from `memberOf` or from
    /// its group. `expected`: the login's role queries sent ahead; set to nil when their answers
    /// were used.
    func roles(of entry: LDAPEntry, on ldap: LDAPConnection, deciding: Bool,
               expected: inout ExpectedRoleQueries?) throws -> [Role] {
        // A login reads its user's tokenGroups; other look-ups (a listing's members, a move's
        // target) use memberOf and the role groups' nesting, read once per session, where a
        // tokenGroups read would cost a round trip per user.
        if deciding, let roles = try rolesFromTokenGroups(of: entry, on: ldap) { return roles }
        let plan: RolePlan?
        switch settings.roleSource {
        case .memberOf: plan = nil
        case .groups: plan = RolePlan(fromMemberOf: [], groupRoles: roleGroups.map(\.0))
        case .auto where try directoryFlavor(on: ldap) == .activeDirectory:
            plan = nil  // Active Directory keeps memberOf for every group: it is complete there
        case .auto where deciding && settings.hasServiceAccount:
            plan = RolePlan(fromMemberOf: [], groupRoles: roleGroups.map(\.0))
        case .auto:
            plan = try rolePlan(on: ldap)
        }
        let memberOf = try plan.map { $0.fromMemberOf.isEmpty } == true
            ? [] : roles(memberOf: entry.values("memberOf"), on: ldap).filter { plan?.usesMemberOf($0) ?? true }
        guard let plan, !plan.groupRoles.isEmpty else { return memberOf }
        let fromGroups: [Role]
        if let membership, membership.covers(plan.groupRoles) {
            fromGroups = membership.roles(dn: entry.dn, uid: entry.first(settings.userAttribute))
        } else if let sent = expected, sent.answer(for: entry, userAttribute: settings.userAttribute) {
            expected = nil
            fromGroups = try receiveRoles(sent.sent, on: ldap)
        } else {
            fromGroups = try rolesFromTokenGroups(of: entry, on: ldap) ?? rolesByQuery(entry, on: ldap)
        }
        return Role.allCases.filter { memberOf.contains($0) || (fromGroups.contains($0) && plan.groupRoles.contains($0)) }
    }

    /// Which roles this session reads from `memberOf`, decided per role group, never per user:
    /// a user's roles must not change because they joined an unrelated group.
    struct RolePlan: Equatable {
        /// Roles whose group `memberOf` follows.
        let fromMemberOf: Set<Role>
        /// The configured roles read from their group entries, in `Role.allCases` order.
        let groupRoles: [Role]

        func usesMemberOf(_ role: Role) -> Bool { fromMemberOf.contains(role) }
    }

    /// `ldap.roleSource` for each role group, decided once per session. `auto` on a directory
    /// other than Active Directory takes `memberOf` for a role group only when the server
    /// keeps it for that group: the group lists no `uniqueMember` or `memberUid` values
    /// (OpenLDAP's memberof overlay and 389's memberOf plug-in follow `member` by default) and
    /// some user entry's `memberOf` names it. Any other group is read from its entry.
    func rolePlan(on ldap: LDAPConnection) throws -> RolePlan {
        if let rolePlanCache { return rolePlanCache }
        let configured = roleGroups
        let fromMemberOf: Set<Role>
        switch settings.roleSource {
        case .memberOf: fromMemberOf = Set(configured.map(\.0))
        case .groups: fromMemberOf = []
        case .auto where try directoryFlavor(on: ldap) == .activeDirectory: fromMemberOf = Set(configured.map(\.0))
        case .auto: fromMemberOf = try rolesMemberOfFollows(configured, on: ldap)
        }
        let plan = RolePlan(fromMemberOf: fromMemberOf, groupRoles: configured.map(\.0).filter { !fromMemberOf.contains($0) })
        rolePlanCache = plan
        return plan
    }

    /// The role groups whose members `memberOf` names (see ``rolePlan(on:)``): one round trip
    /// for the member attributes of all of them, then one one-entry probe each.
    func rolesMemberOfFollows(_ groups: [(Role, String)], on ldap: LDAPConnection) throws -> Set<Role> {
        let otherLists = try ldap.baseMatches(groups.map(\.1), filter: "(|(uniqueMember=*)(memberUid=*))")
        let users = try userFilter(on: ldap)
        var follows: Set<Role> = []
        // A group the reader cannot see (`missing`) is probed too: memberOf may still name it.
        for (index, (role, group)) in groups.enumerated() where otherLists[index] != .matches {
            do {
                try ldap.search(base: settings.userBase, scope: .subtree,
                                filter: "(&\(users)(memberOf=\(FilterEscaping.escape(group))))", attributes: ["1.1"],
                                pageSize: 1) { _ in throw StopSearch() }
            } catch is StopSearch {
                follows.insert(role)
            }
        }
        return follows
    }

    /// Roles from `memberOf` values: a configured role group among them (or, with nested groups,
    /// a group nested in one).
    func roles(memberOf values: [String], on ldap: LDAPConnection) throws -> [Role] {
        guard !values.isEmpty else { return [] }
        if settings.nestedGroups {
            let keys = Set(values.map(DistinguishedName.normalized))
            let nested = try nestedGroupKeys(on: ldap)
            return Role.allCases.filter { nested[$0].map { !$0.isDisjoint(with: keys) } ?? false }
        }
        // The listing's hot path (once per entry): a user is in few groups and there are three
        // roles, so compare in place rather than build a set per entry.
        let groups = roleGroupKeys
        var found = 0  // bit i: groups.keys[i] is among the values
        for value in values { found |= DistinguishedName.matchingKeys(value, groups.keys) }
        return groups.roles.indices.filter { found & (1 << $0) != 0 }.map { groups.roles[$0] }
    }

    /// Each role group with every group nested in it (any depth), found by walking the groups:
    /// one `(&(memberOf=<group>)(objectClass=group))` search per group met, which the server
    /// answers from its index with the few groups, never the users. One
    /// `LDAP_MATCHING_RULE_IN_CHAIN` search per role made Samba test the chain of every entry
    /// of the directory (over 10 s with 5,000 users in a nested group).
    func nestedGroupKeys(on ldap: LDAPConnection) throws -> [Role: Set<String>] {
        if let nestedRoleGroups { return nestedRoleGroups }
        var result: [Role: Set<String>] = [:]
        for (role, group) in settings.groups {
            var keys: Set<String> = [DistinguishedName.normalized(group)]
            var pending = [group]
            while let next = pending.popLast() {
                let filter = "(&(memberOf=\(FilterEscaping.escape(next)))(objectClass=group))"
                try ldap.search(base: settings.baseDN, scope: .subtree, filter: filter, attributes: ["1.1"]) {
                    if keys.insert(DistinguishedName.normalized($0.dn)).inserted { pending.append($0.dn) }
                }
            }
            result[role] = keys
        }
        nestedRoleGroups = result
        return result
    }

    /// The filter that picks the users holding `role`, when roles come from `memberOf`.
    func memberOfFilter(_ role: Role) -> String {
        let group = FilterEscaping.escape(settings.groups[role] ?? "")
        return settings.nestedGroups ? "(memberOf:\(Self.inChain):=\(group))" : "(memberOf=\(group))"
    }

    /// The roles of one user in one round trip: which configured role groups list the user as
    /// `member`, `uniqueMember` or `memberUid` (the server matches the DN, escaping and case
    /// included), one base-scope search per group. With nested groups, `member` matches
    /// through the chain (Active Directory's in-chain rule evaluates it on the group).
    func rolesByQuery(_ entry: LDAPEntry, on ldap: LDAPConnection) throws -> [Role] {
        try receiveRoles(sendRoleQueries(dn: entry.dn, uid: entry.first(settings.userAttribute), on: ldap), on: ldap)
    }

    /// The role queries for the user at `dn` (with user id `uid`), sent: read them with
    /// ``receiveRoles(_:on:)``. The login sends them before it has the user's entry, for the DN
    /// it expects (``ExpectedRoleQueries``).
    func sendRoleQueries(dn: String, uid: String?, on ldap: LDAPConnection) throws -> LDAPConnection.SentBaseMatches {
        let escaped = FilterEscaping.escape(dn)
        let chain = settings.nestedGroups ? ":\(Self.inChain):" : ""
        var parts = ["(member\(chain)=\(escaped))", "(uniqueMember=\(escaped))"]
        if let uid { parts.append("(memberUid=\(FilterEscaping.escape(uid)))") }
        // Each role group on its own (base scope), all asked at once: the server tests three
        // entries, where a subtree search under the base tested every entry of the directory
        // (no index on member is needed; its cost grew with the directory).
        return try ldap.sendBaseMatches(roleGroups.map(\.1), filter: "(|\(parts.joined()))")
    }

    func receiveRoles(_ sent: LDAPConnection.SentBaseMatches, on ldap: LDAPConnection) throws -> [Role] {
        let groups = roleGroups
        var roles: Set<Role> = []
        for (index, answer) in try ldap.receive(sent).enumerated() {
            switch answer {
            case .matches: roles.insert(groups[index].0)
            case .doesNotMatch: break
            case .missing: logger.warning("role group for \(groups[index].0.rawValue) does not exist: \(groups[index].1)")
            }
        }
        return Role.allCases.filter(roles.contains)
    }

    /// The configured role groups, in the order of `Role.allCases`.
    var roleGroups: [(Role, String)] {
        Role.allCases.compactMap { role in settings.groups[role].map { (role, $0) } }
    }

    /// Reads the members of the role groups of `roles` once: `member` and `uniqueMember` DNs
    /// (normalized) and `memberUid` user ids, straight from libldap's buffers, each kept as its
    /// ``GroupMembership/Key`` rather than as a string.
    func loadMembership(of roles: [Role], on ldap: LDAPConnection) throws -> GroupMembership {
        if let membership, membership.covers(roles) { return membership }
        var result = membership ?? GroupMembership()
        for role in roles where result.dns[role] == nil {
            guard let group = settings.groups[role] else { continue }
            var dns: [GroupMembership.Key] = [], uids: [GroupMembership.Key] = []
            do {
                try ldap.forEachValue(of: ["member", "uniqueMember", "memberUid"], inEntry: group, counted: { counts in
                    dns.reserveCapacity(counts[0] + counts[1])
                    uids.reserveCapacity(counts[2])
                }) { attribute, value in
                    if attribute == 2 {
                        uids.append(result.key(String(decoding: value, as: UTF8.self).lowercased()))
                    } else if attribute == 1, let hash = value.firstIndex(of: UInt8(ascii: "#")) {
                        // uniqueMember: `DN#'0101'B` carries an optional unique id after the DN.
                        dns.append(result.key(DistinguishedName.normalized(bytes: UnsafeRawBufferPointer(rebasing: value[..<hash]))))
                    } else {
                        dns.append(result.key(DistinguishedName.normalized(bytes: value)))
                    }
                }
            } catch let error as DirectoryError where error.code == .noSuchObject {
                logger.warning("role group for \(role.rawValue) does not exist: \(group)")
            }
            result.dns[role] = GroupMembership.Keys(consume dns)
            result.uids[role] = GroupMembership.Keys(consume uids)
        }
        membership = result
        return result
    }
}

/// The role groups' member lists, as `loadMembership` read them: each normalized DN or user id
/// as a 128-bit keyed hash (``Key``) in a sorted array, 16 bytes each instead of a string of 40
/// or more with a heap block of its own in a set: a group of 100,000 members costs 1.6 MiB (the
/// array is allocated at its size before the group's values are read) instead of about 12.
struct GroupMembership {
    var dns: [Role: Keys] = [:]
    var uids: [Role: Keys] = [:]

    /// Sorted keys, looked up by binary search (17 comparisons for 100,000).
    struct Keys {
        private let sorted: [Key]

        /// Sorts `keys` in place: the caller hands its array over (`consume`), so a member
        /// list of 100,000 is not copied to be sorted.
        init(_ keys: consuming [Key]) {
            keys.sort()
            sorted = keys
        }

        func contains(_ key: Key) -> Bool {
            var low = 0, high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low < sorted.count && sorted[low] == key
        }
    }

    /// Two 64-bit SipHashes of the text under this list's own random keys. Nobody outside the
    /// process knows the keys, so no DN can be chosen to collide with a member's; by chance two
    /// of a million members collide with a probability under 10^-26.
    struct Key: Hashable, Comparable {
        let high: UInt64
        let low: UInt64

        static func < (a: Key, b: Key) -> Bool { (a.high, a.low) < (b.high, b.low) }
    }

    private let seeds = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    func key(_ text: String) -> Key {
        func hash(_ seed: UInt64) -> UInt64 {
            var hasher = Hasher()
            hasher.combine(seed)
            hasher.combine(text)
            return UInt64(truncatingIfNeeded: hasher.finalize())
        }
        return Key(high: hash(seeds.0), low: hash(seeds.1))
    }

    /// Whether the member lists of `roles` have been read.
    func covers(_ roles: [Role]) -> Bool { roles.allSatisfy { dns[$0] != nil } }

    func roles(dn: String, uid: String?) -> [Role] {
        let key = key(DistinguishedName.normalized(dn))
        let id = uid.map { self.key($0.lowercased()) }
        return Role.allCases.filter { role in
            dns[role]?.contains(key) == true || (id.map { uids[role]?.contains($0) == true } ?? false)
        }
    }
}
