import Foundation

/// One line of `miadmin --check-config`: what was checked, how it came out, and what miadmin
/// sees there.
public struct DirectoryCheckItem: Sendable, Equatable {
    public enum Verdict: String, Sendable { case ok, warning, problem }
    public let subject: String
    public let verdict: Verdict
    public let detail: String
}

/// What miadmin sees of the directory, as the service account, for an administrator who has
/// just written the config: the role groups and crews it can read and by which attribute,
/// whether `memberOf` covers them, the user attribute's substring search, and the account
/// states the server reports. Nothing is written.
extension Directory {
    public func checkConfiguration() throws -> [DirectoryCheckItem] {
        var items: [DirectoryCheckItem] = []
        func add(_ subject: String, _ verdict: DirectoryCheckItem.Verdict, _ detail: String) {
            items.append(DirectoryCheckItem(subject: subject, verdict: verdict, detail: detail))
        }
        let ldap = try connect()  // binds as the service account: a refusal throws (exit 2)
        let rootDSE = try readRootDSE(on: ldap)
        let flavor = try directoryFlavor(on: ldap)
        let reader = settings.bindDN.map { "service account '\($0)'" } ?? "anonymous (no ldap.bindDN)"
        let kind = flavor == .activeDirectory ? "Active Directory"
            : rootDSE["vendorName"].map { "\($0) \(rootDSE["vendorVersion"] ?? "")".trimmingCharacters(in: .whitespaces) }
            ?? "a directory other than Active Directory"
        add("directory", .ok, "\(settings.connection.uri): bound as \(reader); \(kind)")

        let users = try userFilter(on: ldap)
        let sample = try count(base: settings.userBase, filter: users, on: ldap, upTo: 1)
        add("users", sample.readable && sample.count > 0 ? .ok : .problem,
            sample.readable && sample.count > 0
                ? "\(settings.userBase): user entries readable with \(users)"
                : "\(settings.userBase): no user entry readable with \(users)\(sample.error.map { " (\($0))" } ?? "")")

        try checkRoleGroups(users: users, on: ldap, add)
        if let teams = settings.teams { try checkCrews(teams, users: users, on: ldap, add) }
        try checkSubstringSearch(users: users, on: ldap, add)
        try checkAccountStates(rootDSE: rootDSE, flavor: flavor, users: users, on: ldap, add)
        return items
    }

    private func readRootDSE(on ldap: LDAPConnection) throws -> [String: String] {
        var values: [String: String] = [:]
        var controls: [String] = []
        do {
            try ldap.search(base: "", scope: .base, filter: "(objectClass=*)",
                            attributes: ["vendorName", "vendorVersion", "supportedControl"], pageSize: 0) { entry in
                values["vendorName"] = entry.first("vendorName")
                values["vendorVersion"] = entry.first("vendorVersion")
                controls = entry.values("supportedControl")
            }
        } catch let error as DirectoryError where error.kind == .operationFailed {
            logger.info("cannot read the root DSE: \(error)")
        }
        values["supportedControl"] = controls.joined(separator: " ")
        return values
    }

    private struct Count { var count = 0; var readable = true; var error: String? }

    /// How many entries under `base` match `filter` (paged; stops at `upTo`); a base that is
    /// missing or hidden is `readable: false`.
    private func count(base: String, filter: String, on ldap: LDAPConnection, upTo limit: Int = .max) throws -> Count {
        var result = Count()
        do {
            try ldap.search(base: base, scope: .subtree, filter: filter, attributes: ["1.1"]) { _ in
                result.count += 1
                if result.count >= limit { throw StopSearch() }
            }
        } catch is StopSearch {
        } catch let error as DirectoryError where error.kind == .operationFailed {
            result.readable = false
            result.error = error.description
        }
        return result
    }

    /// The member values of the group at `dn` by attribute (nil: missing or unreadable).
    private func memberCounts(_ dn: String, on ldap: LDAPConnection) throws -> [String: Int]? {
        let attributes = ["member", "uniqueMember", "memberUid"]
        guard try ldap.baseMatches([dn], filter: "(objectClass=*)").first == .matches else { return nil }
        var counts: [String: Int] = [:]
        try ldap.forEachValue(of: attributes, inEntry: dn) { index, _ in counts[attributes[index], default: 0] += 1 }
        return counts
    }

    private static func describe(_ counts: [String: Int]) -> String {
        let listed = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) by \($0.key)" }
        return listed.isEmpty ? "no members" : listed.joined(separator: ", ")
    }

    private func checkRoleGroups(users: String, on ldap: LDAPConnection,
                                 _ add: (String, DirectoryCheckItem.Verdict, String) -> Void) throws {
        let plan = try rolePlan(on: ldap)
        for (role, dn) in roleGroups {
            let subject = "role \(role.rawValue)"
            guard let counts = try memberCounts(dn, on: ldap) else {
                add(subject, .problem, "\(dn) does not exist, or the service account may not read it")
                continue
            }
            var detail = "\(dn): \(Self.describe(counts))"
            var verdict = DirectoryCheckItem.Verdict.ok
            let members = counts["member", default: 0]
            if plan.usesMemberOf(role) {
                detail += "; read from users' memberOf"
                if knownFlavor != .activeDirectory || !settings.nestedGroups {
                    let named = try count(base: settings.userBase, filter: "(&\(users)\(memberOfFilter(role)))", on: ldap)
                    detail += " (memberOf names it on \(named.count) user entr\(named.count == 1 ? "y" : "ies"))"
                    if named.count == 0 && members > 0 {
                        verdict = .problem
                        detail += ": memberOf does not follow this group; set ldap.roleSource to groups (or auto)"
                    } else if counts["uniqueMember", default: 0] + counts["memberUid", default: 0] > 0 {
                        verdict = .problem
                        detail += ": its uniqueMember/memberUid members are not in memberOf; set ldap.roleSource to groups (or auto)"
                    } else if named.count < members && knownFlavor != .activeDirectory {
                        verdict = .warning
                        detail += ", fewer than its \(members) member values: memberOf may be incomplete (nested groups "
                            + "or entries added before the memberOf overlay or plug-in)"
                    }
                }
            } else {
                detail += "; read from the group entry"
            }
            if counts.values.reduce(0, +) == 0 && verdict == .ok { verdict = .warning }
            add(subject, verdict, detail)
        }
    }

    private func checkCrews(_ teams: CrewSettings, users: String, on ldap: LDAPConnection,
                            _ add: (String, DirectoryCheckItem.Verdict, String) -> Void) throws {
        switch teams.source {
        case .groups:
            let base = teams.base ?? ""
            let crews = try count(base: base, filter: Self.groupFilter, on: ldap)
            if crews.readable && crews.count > 0 {
                var byAttribute: [String] = []
                for attribute in ["member", "uniqueMember", "memberUid"] {
                    let with = try count(base: base, filter: "(&\(Self.groupFilter)(\(attribute)=*))", on: ldap)
                    if with.count > 0 { byAttribute.append("\(with.count) list members by \(attribute)") }
                }
                add("crews", .ok, "teams.base \(base): \(crews.count) crew group\(crews.count == 1 ? "" : "s") readable"
                    + (byAttribute.isEmpty ? "" : " (\(byAttribute.joined(separator: ", ")))"))
            } else {
                add("crews", .problem, "teams.base \(base): no crew group the service account can read"
                    + (crews.error.map { " (\($0))" } ?? "") + "; give it read rights on teams.base and the groups under it "
                    + "(389's default access controls hide groupOfUniqueNames entries)")
            }
        case .manager:
            let reports = try count(base: settings.userBase, filter: "(&\(users)(\(teams.managerAttribute)=*))", on: ldap)
            add("crews", reports.count > 0 ? .ok : .problem,
                "teams.source manager: \(reports.count) user entr\(reports.count == 1 ? "y" : "ies") with \(teams.managerAttribute) readable")
        }
        if let group = teams.allCrewsGroup {
            let counts = try memberCounts(group, on: ldap)
            add("site leads", counts == nil ? .problem : .ok,
                counts.map { "teams.allTeamsGroup \(group): \(Self.describe($0))" }
                    ?? "teams.allTeamsGroup \(group) does not exist, or the service account may not read it")
        }
    }

    /// Tab completion and `users 'u0000?'` search `(attribute=PREFIX*)`. The server tells a client
    /// about an unindexed search only when it is configured to refuse one (389
    /// `nsslapd-require-index`, OpenLDAP limits `unchecked`): then this search fails, and says so.
    private func checkSubstringSearch(users: String, on ldap: LDAPConnection,
                                      _ add: (String, DirectoryCheckItem.Verdict, String) -> Void) throws {
        let attribute = settings.userAttribute
        let started = DispatchTime.now()
        let found = try count(base: settings.userBase, filter: "(&\(users)(\(attribute)=a*))", on: ldap, upTo: 1)
        let milliseconds = (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
        if found.readable {
            add("\(attribute) prefix search", .ok, "(\(attribute)=a*) answered in \(milliseconds) ms; the server did not refuse "
                + "it as unindexed (it says so only when configured to refuse: index \(attribute) for substrings, "
                + "OpenLDAP `index \(attribute) eq,sub`, 389 `dsconf … backend index set … --add-type sub`)")
        } else {
            add("\(attribute) prefix search", .problem, "(\(attribute)=a*) was refused: \(found.error ?? ""); index \(attribute) "
                + "for substring searches")
        }
    }

    private func checkAccountStates(rootDSE: [String: String], flavor: DirectoryFlavor, users: String, on ldap: LDAPConnection,
                                    _ add: (String, DirectoryCheckItem.Verdict, String) -> Void) throws {
        let policy = (rootDSE["supportedControl"] ?? "").split(separator: " ").contains("1.3.6.1.4.1.42.2.27.8.5.1")
        var seen: [String] = []
        let attributes = flavor == .activeDirectory ? ["userAccountControl"] : ["nsAccountLock", "pwdAccountLockedTime"]
        for attribute in attributes {
            let with = try count(base: settings.userBase, filter: "(&\(users)(\(attribute)=*))", on: ldap)
            seen.append("\(attribute) on \(with.count) user entr\(with.count == 1 ? "y" : "ies")")
        }
        let detail = (policy ? "the password policy control is supported: binds say why an account cannot log in"
                             : flavor == .activeDirectory ? "Active Directory: binds say why in their diagnostic message"
                             : "the root DSE announces no password policy control: a locked account may answer only 49")
            + "; readable: " + seen.joined(separator: ", ")
        add("account states", policy || flavor == .activeDirectory ? .ok : .warning, detail)
    }
}
