import Foundation
import MIDirectory
import MIStore

/// Which crews the logged-in user acts for: read from the directory with the service account,
/// and handed to the store as its ``OwnerScope`` before any command reaches it, so every
/// listing and every change of forms is limited there. Read again before a command once it is
/// `teams.refreshSeconds` old, and by `refresh` (``Session/refreshCrews(force:)``).
public struct CrewReach: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The site keeps no crews (no `teams` in the config): every foreman, every form.
        case noCrews
        /// Support staff keep every crew: they fix stuck forms anywhere.
        case support
        /// A member of `teams.allTeamsGroup`: foreman of every crew.
        case siteLead
        /// A foreman: the crews he leads.
        case crews
        /// A technician (and nothing more): their own forms, as without crews.
        case ownForms
    }

    public let kind: Kind
    /// The crews led (``Kind/crews``), by name.
    public let crews: [Crew]
    /// The store's scope: every owner, or the members of the crews led and the user himself.
    public let scope: OwnerScope
    /// The members of each crew led, by crew name (lowercased ids), as the directory gave them.
    public var membersByCrew: [String: Set<String>] = [:]
    /// False for the crews led read without their members (``Session/crewsLed()``): ``scope``
    /// is then the user's own forms only, never more than the crews' members.
    public var membersRead = true

    /// True when every crew is within reach.
    public var isEveryCrew: Bool { kind == .noCrews || kind == .support || kind == .siteLead }

    /// How `whoami` and `teams` put it.
    public var summary: String {
        switch kind {
        case .noCrews: "all forms (this site keeps no crews)"
        case .support: "every crew (support)"
        case .siteLead: "every crew (site lead)"
        case .crews where crews.isEmpty: "no crew: you lead none, so you act on your own forms only"
        case .crews: crews.map(\.name).joined(separator: ", ")
        case .ownForms: "your own forms (technician)"
        }
    }
}

extension CrewReach {
    /// What changed from `earlier` to this reach, as a session says it once
    /// (`u00010 left Kolonne Nord`); empty when nothing did.
    public func changes(since earlier: CrewReach) -> [String] {
        var changes: [String] = []
        if isEveryCrew != earlier.isEveryCrew || kind != earlier.kind {
            return ["you now act for \(summary)"]
        }
        guard kind == .crews else { return [] }
        let before = Set(earlier.crews.map(\.name)), after = Set(crews.map(\.name))
        for name in after.subtracting(before).sorted() { changes.append("you now lead \(name)") }
        for name in before.subtracting(after).sorted() { changes.append("you no longer lead \(name)") }
        for name in after.intersection(before).sorted() {
            let old = earlier.membersByCrew[name] ?? [], new = membersByCrew[name] ?? []
            for uid in old.subtracting(new).sorted() { changes.append("\(uid) left \(name)") }
            for uid in new.subtracting(old).sorted() { changes.append("\(uid) joined \(name)") }
        }
        if changes.isEmpty, scope != earlier.scope {
            // Members the directory did not give per crew.
            let old = earlier.scope.owners ?? [], new = scope.owners ?? []
            for uid in old.subtracting(new).sorted() { changes.append("\(uid) left your crews") }
            for uid in new.subtracting(old).sorted() { changes.append("\(uid) joined your crews") }
        }
        return changes
    }
}

extension Session {
    /// The crews this session acts for with their members, read from the directory on first use
    /// and kept until ``refreshCrews(force:)`` reads them again.
    public func crewReach() throws -> CrewReach {
        if let crewReachCache, crewReachCache.reach.membersRead { return crewReachCache.reach }
        let reach = try readCrewReach(withMembers: true)
        crewReachCache = (reach, crewUptime())
        if reach.kind == .crews {
            logger.debug("crews led", metadata: ["crews": "\(reach.summary)", "members": "\(reach.scope.owners?.count ?? 0)"])
        }
        // A store opened for the user's own rows (``storeForOwnRows()``) acts for the crews from now on.
        openedStore?.reachSetting.setReach(storeReach(reach))
        return reach
    }

    /// The crews this session acts for, with their members only where the directory gives them
    /// with the crews: what `whoami`, `teams` and the notices at login need. On Active Directory
    /// the crews come from the user's `tokenGroups` in one read, and the members of a nested
    /// crew group of thousands take seconds: ``crewReach()`` reads them when a command first
    /// needs them.
    public func crewsLed() throws -> CrewReach {
        if let crewReachCache { return crewReachCache.reach }
        let reach = try readCrewReach(withMembers: false)
        crewReachCache = (reach, crewUptime())
        return reach
    }

    /// What the store acts for with `reach`: its scope, and the crews audit rows and notices name.
    func storeReach(_ reach: CrewReach) -> Reach {
        Reach(scope: reach.scope, naming: directory.crewSettings.map { _ in DirectoryCrewNaming(directory: directory) })
    }

    /// Reads the crews again when they are `teams.refreshSeconds` old (or with `force`, the
    /// `refresh` command), before a command: the store's scope and crew names follow at once,
    /// so a technician taken out of a crew is out of every open session within that time.
    /// Returns what changed (``CrewReach/changes(since:)``), empty when nothing did or nothing
    /// was read. A directory that cannot answer fails the command: the old crews are not
    /// trusted past their time.
    /// When the crews in force were read (seconds of the session's clock), or nil before the
    /// first read: what is derived from them (Tab's crew names) is as old as they are.
    public var crewsReadAt: Double? { crewReachCache?.readAt }

    @discardableResult
    public func refreshCrews(force: Bool = false) throws -> [String] {
        guard let settings = directory.crewSettings, let cached = crewReachCache else { return [] }
        // Support staff and technicians reach the same forms whatever the crews are.
        guard cached.reach.kind == .crews || cached.reach.kind == .siteLead else { return [] }
        guard force || crewUptime() - cached.readAt >= Double(settings.refreshSeconds) else { return [] }
        let reach = try readCrewReach(withMembers: cached.reach.membersRead)
        crewReachCache = (reach, crewUptime())
        // A new naming too: its caches of crews and members are as old as the crews.
        openedStore?.reachSetting.setReach(storeReach(reach))
        let changes = reach.changes(since: cached.reach)
        if !changes.isEmpty {
            logger.info("crews changed", metadata: ["user": "\(user.uid)", "changes": "\(changes.joined(separator: "; "))"])
        }
        return changes
    }

    private func readCrewReach(withMembers: Bool) throws -> CrewReach {
        guard directory.crewSettings != nil else { return CrewReach(kind: .noCrews, crews: [], scope: .everyone) }
        if user.has(.support) { return CrewReach(kind: .support, crews: [], scope: .everyone) }
        guard user.has(.foreman) else { return CrewReach(kind: .ownForms, crews: [], scope: .everyone) }
        let led = try directory.ledCrews(of: user, withMembers: withMembers)
        if led.allCrews { return CrewReach(kind: .siteLead, crews: [], scope: .everyone) }
        guard led.membersRead else {
            var reach = CrewReach(kind: .crews, crews: led.crews, scope: OwnerScope(owners: [user.uid], crews: led.crews.map(\.name)))
            reach.membersRead = false
            return reach
        }
        let owners = Set(led.memberIDs).union([user.uid])
        var reach = CrewReach(kind: .crews, crews: led.crews, scope: OwnerScope(owners: owners, crews: led.crews.map(\.name)))
        reach.membersByCrew = led.membersByCrew.mapValues { Set($0.map { $0.lowercased() }) }
        return reach
    }

    /// Refuses a command naming `owner` (a filter, a target, a user's notices) when the owner is
    /// outside the user's crews, before the store is asked: the store's own check and refusal
    /// (``OwnerScope/check(_:)``, `t00011 is not in your crews (Kolonne Nord)`). Nothing is read.
    public func requireInCrews(_ owner: String) throws {
        try crewReach().scope.check(owner)
    }

    /// Refuses a command that reads or copies the whole store (`store copy`, `store backup`) to a
    /// user who does not reach every crew: a copy of the store in a foreman's hands would hold
    /// every crew's forms, and the crew rule would stop at the console.
    public func requireEveryCrew(for command: String) throws {
        let reach = try crewReach()
        guard reach.isEveryCrew || reach.kind == .ownForms else {
            throw CommandError.permissionDenied("'\(command)' copies every crew's forms; where the site keeps crews only support "
                                                + "staff and site leads may run it (you lead \(reach.summary))")
        }
    }

    /// The crew `name` if the user may see it (one they lead, or every crew for support and site
    /// leads); refuses otherwise, naming the crews they lead.
    public func visibleCrew(_ name: String) throws -> Crew {
        let reach = try crewsLed()
        guard directory.crewSettings != nil else {
            throw CommandError.failed("this site keeps no crews (no teams object in \(config.file))")
        }
        if reach.isEveryCrew {
            guard let crew = try directory.crew(named: name) else {
                throw CommandError.failed("no crew '\(name)' in the directory" + (try crewSuggestion(for: name)))
            }
            return crew
        }
        guard let crew = reach.crews.first(where: { $0.name == name })
            ?? reach.crews.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            throw CommandError.permissionDenied("'\(name)' is not one of your crews (\(reach.scope.ledCrews))"
                                                + (try crewSuggestion(for: name)))
        }
        return crew
    }

    /// The user ids (lowercased) of the members of `crew`, which the user may see: for a crew
    /// he leads, those read with his crews for the store's scope (on Active Directory each entry
    /// is kept as the directory's look-up of that user, so a listing of them asks nothing more),
    /// else the directory's. A nested crew of thousands is walked once, not twice.
    public func crewMemberIDs(of crew: Crew) throws -> [String] {
        let reach = try crewReach()
        if reach.kind == .crews, let ids = reach.membersByCrew[crew.name] { return ids.sorted() }
        return try directory.memberIDs(of: crew).map { $0.lowercased() }
    }

    /// "; did you mean 'Kolonne Nord'?" for a mistyped crew (`Kolonne Nrod`) or a part of one
    /// crew's name (`nord`), among the crews the user may see; else "".
    func crewSuggestion(for typed: String) throws -> String {
        var names: [String] = []
        try forEachVisibleCrew { names.append($0.name) }
        let lowered = names.map { $0.lowercased() }
        if let near = Spelling.closest(to: typed, among: lowered), let index = lowered.firstIndex(of: near) {
            return "; did you mean '\(names[index])'?"
        }
        let containing = names.filter { $0.range(of: typed, options: .caseInsensitive) != nil }
        return containing.count == 1 ? "; did you mean '\(containing[0])'?" : ""
    }

    /// The crews the user may see, by name: every crew for support and site leads, the crews
    /// led for a foreman.
    public func forEachVisibleCrew(_ body: (Crew) throws -> Void) throws {
        let reach = try crewsLed()
        guard directory.crewSettings != nil else { return }
        if reach.isEveryCrew {
            try directory.forEachCrew(body)
        } else {
            for crew in reach.crews { try body(crew) }
        }
    }
}
