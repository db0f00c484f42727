import Foundation

/// Listing and searching users: the `users` command, completion, and checks of many owners.
extension Directory {
    /// Streams the directory's users under `userBase` (entries the user filter accepts),
    /// optionally those whose user id or name matches `pattern` and/or who hold `role`. Paged, so
    /// the server's size limit does not cut the listing short; each user is handed to `body` as
    /// it arrives. Roles whose groups `memberOf` follows (``rolePlan(on:)``) come with each entry,
    /// and `role` becomes part of the filter: their groups' member lists are never read; the
    /// other role groups' members are read once.
    ///
    /// The attributes that say an account is locked or disabled (``AccountState/entryAttributes``)
    /// are asked for only with `accountStates`; without it every user's ``DirectoryUser/accountState``
    /// is nil. A listing that does not show them does not make the server look for them in every
    /// entry, which is a measurable part of its work (docs/benchmarks.md, "Directory listing").
    public func forEachUser(matching pattern: Glob?, role: Role?, accountStates: Bool = false,
                            _ body: (DirectoryUser) throws -> Void) throws {
        let ldap = try connect()
        let plan = try rolePlan(on: ldap)
        let membership = plan.groupRoles.isEmpty ? nil : try loadMembership(of: plan.groupRoles, on: ldap)
        let attribute = settings.userAttribute
        var filter = try userFilter(on: ldap)
        if let pattern {
            let value = FilterEscaping.substringFilterValue(forGlob: pattern.pattern)
            filter += "(|(\(attribute)=\(value))(cn=\(value)))"
        }
        if let role, plan.usesMemberOf(role) { filter += memberOfFilter(role) }
        // Two accounts whose ids look alike (``LookAlikeIds``): refused.
        var lookAlikes = LookAlikeWatch()
        try ldap.search(base: settings.userBase, scope: .subtree, filter: "(&\(filter))",
                        attributes: try userAttributes(on: ldap, accountStates: accountStates)) { entry in
            if let id = entry.first(attribute) {
                if let found = lookAlikes.add(id) { throw DirectoryError(.configuration, found.message) }
                if lookAlikes.skeletonsWaiting >= Self.skeletonsPerSearch {
                    try askDirectory(&lookAlikes, filter: filter, on: ldap)
                }
            }
            let roles = try combinedRoles(entry, plan: plan, membership: membership, on: ldap)
            if let role, !roles.contains(role) { return }
            let user = user(from: entry, roles: roles)
            if let pattern, !pattern.matches(user.uid), !pattern.matches(user.name) { return }
            try body(user)
        }
        try askDirectory(&lookAlikes, filter: filter, on: ldap)
    }

    /// Skeletons asked of the directory in one search: a pair is reported soon after its second
    /// id is listed, in few searches even where many ids are beyond ASCII.
    static let skeletonsPerSearch = 50

    /// Asks the directory, with the listing's own filter, for entries whose id is one of the
    /// skeletons `watch` kept (``LookAlikeWatch``); throws naming the pair if one is found.
    private func askDirectory(_ watch: inout LookAlikeWatch, filter: String, on ldap: LDAPConnection) throws {
        let skeletons = watch.takeSkeletonsToAsk()
        guard !skeletons.isEmpty else { return }
        let attribute = settings.userAttribute
        let ids = skeletons.map { "(\(attribute)=\(FilterEscaping.escape($0)))" }.joined()
        var found: [String] = []
        try ldap.search(base: settings.userBase, scope: .subtree, filter: "(&\(filter)(|\(ids)))", attributes: [attribute]) {
            found += $0.values(attribute)
        }
        if let pair = watch.lookAlike(amongFound: found) { throw DirectoryError(.configuration, pair.message) }
    }

    /// User ids starting with `prefix` (for Tab completion), at most `limit`, sorted: one prefix
    /// search `(&FILTER(uid=PREFIX*))`, escaped and paged, that stops at `limit` entries, so the
    /// first Tab never loads the directory. With `role`, only users holding it: in the filter
    /// when roles come from `memberOf`; otherwise each candidate (at most `limit`) is checked.
    public func userIDs(prefix: String, role: Role? = nil, limit: Int = 200) throws -> [String] {
        let ldap = try connect()
        let attribute = settings.userAttribute
        var filter = try userFilter(on: ldap) + "(\(attribute)=\(FilterEscaping.escape(prefix))*)"
        let memberOf = try role.map { try rolePlan(on: ldap).usesMemberOf($0) } ?? false
        if let role, memberOf { filter += memberOfFilter(role) }
        var attributes = [attribute]
        if role != nil, !memberOf { attributes += ["cn", "mail"] }
        var candidates: [LDAPEntry] = []
        do {
            try ldap.search(base: settings.userBase, scope: .subtree, filter: "(&\(filter))", attributes: attributes,
                            pageSize: Int32(min(limit, Int(settings.connection.pageSize)))) { entry in
                candidates.append(entry)
                if candidates.count >= limit { throw StopSearch() }
            }
        } catch is StopSearch {}
        var uids: [String] = []
        for entry in candidates {
            guard let uid = entry.first(attribute) else { continue }
            if let role, !memberOf {
                let holds = if let membership, membership.covers([role]) {
                    membership.roles(dn: entry.dn, uid: uid).contains(role)
                } else {
                    try rolesByQuery(entry, on: ldap).contains(role)
                }
                guard holds else { continue }
            }
            uids.append(uid)
        }
        return uids.sorted()
    }

    /// A listed entry's roles: from its `memberOf` values for the roles the plan reads there,
    /// from the member lists read once for the others.
    private func combinedRoles(_ entry: LDAPEntry, plan: RolePlan, membership: GroupMembership?,
                               on ldap: LDAPConnection) throws -> [Role] {
        guard let membership else { return try roles(memberOf: entry.values("memberOf"), on: ldap) }
        let fromGroups = membership.roles(dn: entry.dn, uid: entry.first(settings.userAttribute))
        if plan.fromMemberOf.isEmpty { return fromGroups }
        let fromMemberOf = try roles(memberOf: entry.values("memberOf"), on: ldap).filter(plan.usesMemberOf)
        return Role.allCases.filter { fromGroups.contains($0) || fromMemberOf.contains($0) }
    }
}
