import Foundation

/// A crew as the directory keeps it (``CrewSettings``).
public struct Crew: Sendable, Hashable, Comparable {
    /// The group's `cn`, or (source `manager`) the foreman's user id.
    public let name: String
    /// The group's DN, or (source `manager`) the foreman's DN.
    public let dn: String

    public init(name: String, dn: String) {
        self.name = name
        self.dn = dn
    }

    public static func < (lhs: Crew, rhs: Crew) -> Bool { (lhs.name, lhs.dn) < (rhs.name, rhs.dn) }
}

/// What a foreman's session acts for (``Directory/ledCrews(of:)``).
public struct LedCrews: Sendable, Equatable {
    /// A member of `teams.allTeamsGroup`: foreman of every crew (``crews`` and ``memberIDs`` empty).
    public let allCrews: Bool
    /// The crews he leads, by name.
    public let crews: [Crew]
    /// Their members' user ids (foremen included; a technician in two crews may be listed twice).
    public let memberIDs: [String]
    /// The member ids of each crew in ``crews``, by crew name, where the directory gave them per
    /// crew: what a session names when its crews change (`u00010 left Kolonne Nord`).
    public let membersByCrew: [String: [String]]
    /// False when the crews were read without their members (``Directory/ledCrews(of:withMembers:)``
    /// asked for none and they did not come with the crews): ``memberIDs`` is empty then, not
    /// the members.
    public let membersRead: Bool

    public init(allCrews: Bool, crews: [Crew], memberIDs: [String], membersByCrew: [String: [String]] = [:],
                membersRead: Bool = true) {
        self.allCrews = allCrews
        self.crews = crews
        self.memberIDs = memberIDs
        self.membersByCrew = membersByCrew
        self.membersRead = membersRead
    }
}

/// Reading crews. Every read runs on the session's read connection, bound as the
/// service account. Nothing here holds a crew's members beyond the call that reads them: a
/// session keeps the user ids of the crews its user leads, not every crew's.
extension Directory {
    private var teams: CrewSettings {
        get throws {
            guard let teams = settings.teams else {
                throw DirectoryError(.configuration, "this site keeps no crews (no teams object in the config)")
            }
            return teams
        }
    }

    /// A filter matching group entries that list the user at `dn` (user id `uid`) as a member,
    /// with any membership attribute the role groups support; through nested groups on Active
    /// Directory with `ldap.nestedGroups`.
    private func membershipFilter(dn: String, uid: String) -> String {
        let escaped = FilterEscaping.escape(dn)
        let chain = settings.nestedGroups ? ":\(Self.inChain):" : ""
        return "(|(member\(chain)=\(escaped))(uniqueMember=\(escaped))(memberUid=\(FilterEscaping.escape(uid))))"
    }

    /// Group entries, whatever their kind (the crew base holds groups; other entries there, such
    /// as sub-OUs, are not crews).
    static let groupFilter =
        "(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=posixGroup)(objectClass=group))"

    /// What a foreman's session acts for: every crew (a member of `teams.allTeamsGroup`, a site
    /// lead), or the crews he leads with their members' user ids. The questions that do not wait
    /// for each other go out together: the all-teams check and the search for his crews (which
    /// brings each crew's member list with it), one round trip where the member DNs have the
    /// usual layout; with source `manager`, the check and the search for his reports.
    /// On Active Directory the crews come from the user's `tokenGroups` and their members take
    /// a walk of the nested groups (seconds for a nested group of thousands): without
    /// `withMembers` that walk is left to the first command that needs the members
    /// (``LedCrews/membersRead`` false); elsewhere the members come with the crews anyway.
    public func ledCrews(of user: DirectoryUser, withMembers: Bool = true) throws -> LedCrews {
        let teams = try teams
        let ldap = try connect()
        if teams.source == .groups, let token = try crewsFromTokenGroups(of: user, teams, fresh: true, on: ldap) {
            if token.allCrews { return LedCrews(allCrews: true, crews: [], memberIDs: []) }
            if token.crews.isEmpty { try requireVisibleCrews(teams, on: ldap) }
            guard withMembers else { return LedCrews(allCrews: false, crews: token.crews.sorted(), memberIDs: [], membersRead: false) }
            return try led(token.crews.sorted())
        }
        let membership = membershipFilter(dn: user.dn, uid: user.uid)
        let allCrews = try teams.allCrewsGroup.map { try ldap.sendBaseMatches([$0], filter: membership) }
        let memberAttributes = ["member", "uniqueMember", "memberUid"]
        let search: LDAPConnection.SentSearch
        do {
            switch teams.source {
            case .groups:
                search = try ldap.send(base: try crewBase(teams), scope: .subtree,
                                       filter: "(&\(Self.groupFilter)\(membership))",
                                       attributes: ["cn"] + (settings.nestedGroups ? [] : memberAttributes))
            case .manager:
                search = try ldap.send(base: settings.userBase, scope: .subtree,
                                       filter: "(&\(try userFilter(on: ldap))(\(teams.managerAttribute)=\(FilterEscaping.escape(user.dn))))",
                                       attributes: [settings.userAttribute])
            }
        } catch {
            allCrews.map(ldap.abandon)
            throw error
        }
        if let allCrews {
            let answer: LDAPConnection.BaseMatch?
            do {
                answer = try ldap.receive(allCrews).first
            } catch {
                ldap.abandon(search)
                throw error
            }
            if answer == .missing { logger.warning("teams.allTeamsGroup does not exist: \(teams.allCrewsGroup ?? "")") }
            if answer == .matches {
                ldap.abandon(search)
                return LedCrews(allCrews: true, crews: [], memberIDs: [])
            }
        }
        switch teams.source {
        case .manager:
            var ids = [user.uid]
            try ldap.receive(search) { entry in
                if let uid = entry.first(settings.userAttribute) { ids.append(uid) }
            }
            return LedCrews(allCrews: false, crews: [Crew(name: user.uid, dn: user.dn)], memberIDs: ids,
                            membersByCrew: [user.uid: ids])
        case .groups:
            var found: [(crew: Crew, dns: [String], uids: [String])] = []
            try readingCrews(teams, on: ldap) {
                try ldap.receive(search) { entry in
                    let dns = entry.values("member") + entry.values("uniqueMember").map(Self.withoutUniqueID)
                    found.append((Crew(name: entry.first("cn") ?? entry.dn, dn: entry.dn), dns, entry.values("memberUid")))
                }
            }
            // "You lead none" only when the crew base shows crews at all.
            if found.isEmpty { try requireVisibleCrews(teams, on: ldap) }
            if settings.nestedGroups { return try led(found.map(\.crew).sorted()) }
            var ids: [String] = []
            var byCrew: [String: [String]] = [:]
            for crew in found {
                let members = try userIDs(ofMembers: crew.dns, on: ldap) + crew.uids
                ids += members
                byCrew[crew.crew.name, default: []] += members
            }
            return LedCrews(allCrews: false, crews: found.map(\.crew).sorted(), memberIDs: ids, membersByCrew: byCrew)
        }
    }

    /// What a foreman of `crews` acts for, each crew's members read through its nested groups,
    /// each member's entry kept as the session's look-up of that user: `teams show` and
    /// `users --team` of a crew he leads list them from there (``memberIDs(of:)`` would walk
    /// the groups again).
    private func led(_ crews: [Crew]) throws -> LedCrews {
        var ids: [String] = []
        var byCrew: [String: [String]] = [:]
        for crew in crews {
            let members = try nestedMemberIDs(of: crew.dn, on: try connect())
            ids += members
            byCrew[crew.name, default: []] += members
        }
        return LedCrews(allCrews: false, crews: crews, memberIDs: ids, membersByCrew: byCrew)
    }

    /// The crews whose groups are among the user's `tokenGroups` (at any depth), and whether
    /// the all-teams group is; nil where tokenGroups do not decide (``tokenGroups(ofEntryAt:on:)``,
    /// or a distribution group among them). `fresh` reads the crew groups again.
    private func crewsFromTokenGroups(of user: DirectoryUser, _ teams: CrewSettings, fresh: Bool,
                                      on ldap: LDAPConnection) throws -> (crews: [Crew], allCrews: Bool)? {
        guard settings.nestedGroups, tokenGroupsOffered != false,
              try directoryFlavor(on: ldap) == .activeDirectory else { return nil }
        var groups: (crews: GroupSIDs<Crew>, allCrews: SID?)?
        try readingCrews(teams, on: ldap) {
            groups = try crewGroupSIDs(base: try crewBase(teams), allCrewsGroup: teams.allCrewsGroup, fresh: fresh, on: ldap)
        }
        guard let groups, groups.crews.allSecurity, let tokens = try tokenGroups(ofEntryAt: user.dn, on: ldap) else { return nil }
        return (groups.crews.keys(in: tokens), groups.allCrews.map(tokens.contains) ?? false)
    }

    /// A `uniqueMember` value without its optional unique id (`DN#'0101'B`).
    static func withoutUniqueID(_ value: String) -> String {
        value.lastIndex(of: "#").map { String(value[..<$0]) } ?? value
    }

    /// The crews `user` belongs to: as a member of the crew's group (source `groups`), or
    /// through their own manager attribute (source `manager`: the crew of their foreman). A
    /// foreman leads the crews he belongs to; with source `manager` he leads his own crew, which
    /// ``crews(ledBy:)`` gives.
    public func crews(containing user: DirectoryUser) throws -> [Crew] {
        let teams = try teams
        let ldap = try connect()
        switch teams.source {
        case .groups:
            if let token = try crewsFromTokenGroups(of: user, teams, fresh: false, on: ldap) {
                if token.crews.isEmpty { try requireVisibleCrews(teams, on: ldap) }
                return token.crews.sorted()
            }
            var crews: [Crew] = []
            try readingCrews(teams, on: ldap) {
                try ldap.search(base: try crewBase(teams), scope: .subtree,
                                filter: "(&\(Self.groupFilter)\(membershipFilter(dn: user.dn, uid: user.uid)))",
                                attributes: ["cn"]) { entry in
                    crews.append(Crew(name: entry.first("cn") ?? entry.dn, dn: entry.dn))
                }
            }
            if crews.isEmpty { try requireVisibleCrews(teams, on: ldap) }
            return crews.sorted()
        case .manager:
            var managers: [String] = []
            try ldap.forEachValue(of: [teams.managerAttribute], inEntry: user.dn) { _, value in
                managers.append(String(decoding: value, as: UTF8.self))
            }
            return try managers.compactMap { dn in try userIDs(ofMembers: [dn], on: ldap).first.map { Crew(name: $0, dn: dn) } }
                .sorted()
        }
    }

    /// Every crew, by name: each group under `teams.base`, or (source `manager`) each foreman.
    public func forEachCrew(_ body: (Crew) throws -> Void) throws {
        let teams = try teams
        switch teams.source {
        case .groups:
            var crews: [Crew] = []
            let ldap = try connect()
            try readingCrews(teams, on: ldap) {
                try ldap.search(base: try crewBase(teams), scope: .subtree, filter: Self.groupFilter, attributes: ["cn"]) { entry in
                    crews.append(Crew(name: entry.first("cn") ?? entry.dn, dn: entry.dn))
                }
            }
            if crews.isEmpty { try requireVisibleCrews(teams, on: ldap) }
            for crew in crews.sorted() { try body(crew) }
        case .manager:
            var crews: [Crew] = []
            try forEachUser(matching: nil, role: .foreman) { crews.append(Crew(name: $0.uid, dn: $0.dn)) }
            for crew in crews.sorted() { try body(crew) }
        }
    }

    /// The crew called `name` (its `cn`, or the foreman's user id), or nil.
    public func crew(named name: String) throws -> Crew? {
        let teams = try teams
        switch teams.source {
        case .groups:
            var found: Crew?
            let ldap = try connect()
            try readingCrews(teams, on: ldap) {
                try ldap.search(base: try crewBase(teams), scope: .subtree,
                                filter: "(&\(Self.groupFilter)(cn=\(FilterEscaping.escape(name))))", attributes: ["cn"]) { entry in
                    found = found ?? Crew(name: entry.first("cn") ?? name, dn: entry.dn)
                }
            }
            if found == nil { try requireVisibleCrews(teams, on: ldap) }
            return found
        case .manager:
            guard let foreman = try user(uid: name), foreman.has(.foreman) else { return nil }
            return Crew(name: foreman.uid, dn: foreman.dn)
        }
    }

    /// The user ids of `crew`'s members, foremen included: what a session that leads it keeps.
    /// Where member DNs have the usual layout (`uid=ID,<ldap.userBase>`) the id is read from the
    /// DN itself; other members cost one base read each, all sent at once.
    public func memberIDs(of crew: Crew) throws -> [String] {
        let teams = try teams
        let ldap = try connect()
        switch teams.source {
        case .manager:
            var ids = [crew.name]
            try ldap.search(base: settings.userBase, scope: .subtree,
                            filter: "(&\(try userFilter(on: ldap))(\(teams.managerAttribute)=\(FilterEscaping.escape(crew.dn))))",
                            attributes: [settings.userAttribute]) { entry in
                if let uid = entry.first(settings.userAttribute) { ids.append(uid) }
            }
            return ids
        case .groups where settings.nestedGroups:
            return try nestedMemberIDs(of: crew.dn, on: ldap)
        case .groups:
            var dns: [String] = [], uids: [String] = []
            try ldap.forEachValue(of: ["member", "uniqueMember", "memberUid"], inEntry: crew.dn) { attribute, value in
                let text = String(decoding: value, as: UTF8.self)
                switch attribute {
                case 2: uids.append(text)
                case 1: dns.append(Self.withoutUniqueID(text))
                default: dns.append(text)
                }
            }
            return try userIDs(ofMembers: dns, on: ldap) + uids
        }
    }

    /// The user ids of the users under `ldap.userBase` in the group at `dn` or in a group nested
    /// in it, at any depth: one paged `memberOf=<group>` search per group, users and groups
    /// together, each nested group walked once. Samba answered it 6 to 12 times faster than
    /// one `LDAP_MATCHING_RULE_IN_CHAIN` search for a crew with a nested group of 5,000
    /// (docs/configuration.md).
    /// Each member's whole entry is read and kept as the session's look-up of that user (what
    /// `teams show` and `users --team` ask next for every member: one search instead of one per
    /// member). A login reads no members (``ledCrews(of:withMembers:)``).
    func nestedMemberIDs(of dn: String, on ldap: LDAPConnection) throws -> [String] {
        let users = try userFilter(on: ldap)
        let userBase = "," + DistinguishedName.normalized(settings.userBase)
        let attributes = try userAttributes(on: ldap) + ["objectClass"]
        var entries: [LDAPEntry] = []
        var ids: [String] = []
        var walked: Set<String> = [DistinguishedName.normalized(dn)]
        var pending = [dn]
        while let group = pending.popLast() {
            try ldap.search(base: settings.baseDN, scope: .subtree,
                            filter: "(&(memberOf=\(FilterEscaping.escape(group)))(|\(users)(objectClass=group)))",
                            attributes: attributes) { entry in
                let key = DistinguishedName.normalized(entry.dn)
                if entry.values("objectClass").contains(where: { $0.caseInsensitiveCompare("group") == .orderedSame }) {
                    if walked.insert(key).inserted { pending.append(entry.dn) }
                } else if key.hasSuffix(userBase), let uid = entry.first(settings.userAttribute) {
                    ids.append(uid)
                    entries.append(entry)
                }
            }
        }
        // Roles as a look-up by user id reads them (memberOf and the role groups' nesting), once
        // the search is done: the nesting is read on the same connection.
        for entry in entries where userCache[(entry.first(settings.userAttribute) ?? "").lowercased()] == nil {
            let user = try makeUser(entry, on: ldap, deciding: false)
            userCache[user.uid.lowercased()] = user
        }
        // A user in two of the groups is listed once.
        var seen: Set<String> = []
        return ids.filter { seen.insert($0.lowercased()).inserted }
    }

    /// Runs a search under the crew base; a base that does not exist or may not be read is the
    /// error of ``hiddenCrews(_:)``, not a missing crew.
    private func readingCrews(_ teams: CrewSettings, on ldap: LDAPConnection, _ search: () throws -> Void) throws {
        do {
            try search()
        } catch let error as DirectoryError where error.code == .noSuchObject || error.code == .insufficientAccess {
            throw hiddenCrews(teams, code: error.code)
        }
    }

    /// An empty answer from the crew base means "no crew" only when the base shows the reader
    /// any crew at all: a directory that hides its crew groups (389's default access controls
    /// hide `groupOfUniqueNames` entries from everyone but Directory Manager) answers every
    /// crew search with nothing, and the console would tell a foreman he leads none. One
    /// one-entry probe, once per session.
    func requireVisibleCrews(_ teams: CrewSettings, on ldap: LDAPConnection) throws {
        if crewBaseShowsCrews { return }
        var found = false
        do {
            try readingCrews(teams, on: ldap) {
                try ldap.search(base: try crewBase(teams), scope: .subtree, filter: Self.groupFilter, attributes: ["1.1"],
                                pageSize: 1) { _ in
                    found = true
                    throw StopSearch()
                }
            }
        } catch is StopSearch {}
        guard found else { throw hiddenCrews(teams, code: nil) }
        crewBaseShowsCrews = true
    }

    private func hiddenCrews(_ teams: CrewSettings, code: LDAPResultCode?) -> DirectoryError {
        let reader = settings.bindDN.map { "the service account '\($0)'" } ?? "an anonymous or user bind"
        return DirectoryError(.configuration, code: code,
            "teams.base '\(teams.base ?? "")' shows \(reader) no crew: it does not exist, holds no group entries, or " +
            "hides them from that account; give the service account read rights on teams.base and the crew groups " +
            "under it (389 Directory Server's default access controls hide groupOfUniqueNames entries)")
    }

    /// The crew base (`teams.base`), required for source `groups`.
    private func crewBase(_ teams: CrewSettings) throws -> String {
        guard let base = teams.base, !base.isEmpty else {
            throw DirectoryError(.configuration, "teams.source is groups, so teams.base is required")
        }
        return base
    }

    /// The user ids of the entries at `dns` that are users: read from the DN where it is
    /// `<userAttribute>=ID,<userBase>`, otherwise by one base read each (all sent before any
    /// answer is read). Entries that are not users (a nested group, a machine) are left out.
    func userIDs(ofMembers dns: [String], on ldap: LDAPConnection) throws -> [String] {
        var ids: [String] = []
        var others: [String] = []
        let userBase = DistinguishedName.normalized(settings.userBase)
        for dn in dns {
            if let uid = Self.simpleRDNValue(dn, attribute: settings.userAttribute, under: userBase) {
                ids.append(uid)
            } else {
                others.append(dn)
            }
        }
        guard !others.isEmpty else { return ids }
        let filter = try userFilter(on: ldap)
        var sent: [LDAPConnection.SentSearch] = []
        defer { sent.forEach(ldap.abandon) }
        for dn in others {
            sent.append(try ldap.send(base: dn, scope: .base, filter: filter, attributes: [settings.userAttribute]))
        }
        while !sent.isEmpty {
            let search = sent.removeFirst()
            do {
                try ldap.receive(search) { entry in
                    if let uid = entry.first(settings.userAttribute) { ids.append(uid) }
                }
            } catch let error as DirectoryError where error.code == .noSuchObject {
                logger.debug("a crew member's entry does not exist: \(error)")
            }
        }
        return ids
    }

    /// `ID` when `dn` is `attribute=ID,<base>` with a plain value (no escapes, quotes or `+`)
    /// and `base` (normalized) right above it; nil otherwise.
    static func simpleRDNValue(_ dn: String, attribute: String, under base: String) -> String? {
        guard let comma = dn.firstIndex(of: ","), let equals = dn[..<comma].firstIndex(of: "=") else { return nil }
        let name = dn[..<equals].trimmingCharacters(in: .whitespaces)
        let value = dn[dn.index(after: equals)..<comma].trimmingCharacters(in: .whitespaces)
        guard name.caseInsensitiveCompare(attribute) == .orderedSame, !value.isEmpty,
              !value.contains(where: { "\\\"+#<>;=".contains($0) }) else { return nil }
        guard DistinguishedName.normalized(String(dn[dn.index(after: comma)...])) == base else { return nil }
        return value
    }
}
