import MICommands
import MIDirectory

/// A directory of a few users, as the LDAP fixture has them (docs/testing-fixture.md), held in
/// memory. It counts what it is asked, so a test can tell that a refused command asked nothing.
final class FakeDirectory: DirectoryService {
    static let users: [DirectoryUser] = [
        DirectoryUser(uid: "mkhan", dn: "uid=mkhan,ou=people,dc=example,dc=com", name: "Mariam Khan",
                      mail: "mkhan@example.com", roles: [.foreman]),
        DirectoryUser(uid: "tpatel", dn: "uid=tpatel,ou=people,dc=example,dc=com", name: "Tara Patel",
                      mail: "tpatel@example.com", roles: [.foreman, .technician]),
        DirectoryUser(uid: "jdoe", dn: "uid=jdoe,ou=people,dc=example,dc=com", name: "John Doe",
                      mail: "jdoe@example.com", roles: [.technician]),
        DirectoryUser(uid: "asmith", dn: "uid=asmith,ou=people,dc=example,dc=com", name: "Anna Smith",
                      mail: nil, roles: [.technician]),
        DirectoryUser(uid: "lchen", dn: "uid=lchen,ou=people,dc=example,dc=com", name: "Li Chen",
                      mail: "lchen@example.com", roles: [.support]),
        DirectoryUser(uid: "nbody", dn: "uid=nbody,ou=people,dc=example,dc=com", name: "Nora Body",
                      mail: nil, roles: []),
    ]

    /// The site lead of the crew tests: a foreman in `cn=site-leads` (``withCrews()``).
    static let siteLead = DirectoryUser(uid: "slead", dn: "uid=slead,ou=people,dc=example,dc=com", name: "Sam Lead",
                                        mail: nil, roles: [.foreman])
    /// A technician of the south crew, for targets outside the north crew.
    static let southTechnician = DirectoryUser(uid: "sobrien", dn: "uid=sobrien,ou=people,dc=example,dc=com",
                                               name: "Sean O'Brien", mail: nil, roles: [.technician])

    /// A second technician of the north crew, a move target inside it.
    static let northTechnician = DirectoryUser(uid: "zangstrom", dn: "cn=Zoë Ångström,ou=people,dc=example,dc=com",
                                               name: "Zoë Ångström", mail: nil, roles: [.technician])
    static let crewUsers = [siteLead, southTechnician, northTechnician]

    static func user(_ uid: String) -> DirectoryUser { (users + crewUsers).first { $0.uid == uid }! }

    private(set) var questions: [String] = []

    /// Crews (nil: the site keeps none): name → member ids, foremen included.
    private(set) var crewMembers: [String: [String]]?
    private(set) var crewSettings: CrewSettings?
    private var allCrews: Set<String> = []
    /// The crews come without their members unless asked for them, as Active Directory's from
    /// `tokenGroups` do (``lazyMembers()``).
    private var crewMembersLazy = false
    private var everyone: [DirectoryUser] { crewMembers == nil ? Self.users : Self.users + Self.crewUsers }

    /// The crews of the crew tests: Kolonne Nord (mkhan leads; jdoe, zangstrom), Kolonne Süd (tpatel leads;
    /// asmith, sobrien), slead in the all-teams group.
    func withCrews() -> FakeDirectory {
        crewSettings = CrewSettings(source: .groups, base: "ou=Kolonnen,dc=example,dc=com",
                                    allCrewsGroup: "cn=site-leads,ou=groups,dc=example,dc=com")
        crewMembers = ["Kolonne Nord": ["mkhan", "jdoe", "zangstrom"], "Kolonne Süd": ["tpatel", "asmith", "sobrien"]]
        allCrews = ["slead"]
        return self
    }

    /// Crews read without members when the session asks for none (Active Directory's way).
    func lazyMembers() -> FakeDirectory {
        crewMembersLazy = true
        return self
    }

    /// The directory changes while sessions stay open: `uid` leaves crew `from` for crew `to`.
    func moveMember(_ uid: String, from: String, to: String) {
        crewMembers?[from]?.removeAll { $0 == uid }
        crewMembers?[to, default: []].append(uid)
    }

    /// How old a session's crews may get before it reads them again (`teams.refreshSeconds`).
    func refreshing(every seconds: Int) -> FakeDirectory {
        crewSettings?.refreshSeconds = seconds
        return self
    }

    func user(uid: String) throws -> DirectoryUser? {
        questions.append("user \(uid)")
        return everyone.first { $0.uid.lowercased() == uid.lowercased() }
    }

    func forEachUser(matching pattern: Glob?, role: Role?, accountStates: Bool,
                     _ body: (DirectoryUser) throws -> Void) throws {
        questions.append("users")
        for user in everyone where role.map(user.roles.contains) ?? true {
            if let pattern, !pattern.matches(user.uid), !pattern.matches(user.name) { continue }
            // As the directory: a listing that does not ask for account states has none.
            try body(accountStates ? user : DirectoryUser(uid: user.uid, dn: user.dn, name: user.name, mail: user.mail,
                                                          roles: user.roles))
        }
    }

    func userIDs(prefix: String, role: Role?, limit: Int) throws -> [String] {
        questions.append("userIDs \(prefix)")
        return everyone.filter { $0.uid.hasPrefix(prefix) && (role.map($0.roles.contains) ?? true) }
            .map(\.uid).sorted().prefix(limit).map { $0 }
    }

    private func crew(_ name: String) -> Crew { Crew(name: name, dn: "cn=\(name),ou=Kolonnen,dc=example,dc=com") }

    func ledCrews(of user: DirectoryUser, withMembers: Bool) throws -> LedCrews {
        questions.append(withMembers || !crewMembersLazy ? "led crews \(user.uid)" : "led crews \(user.uid) without members")
        if allCrews.contains(user.uid) { return LedCrews(allCrews: true, crews: [], memberIDs: []) }
        let crews = (crewMembers ?? [:]).filter { $0.value.contains(user.uid) }.keys.sorted().map { self.crew($0) }
        if !withMembers && crewMembersLazy { return LedCrews(allCrews: false, crews: crews, memberIDs: [], membersRead: false) }
        return LedCrews(allCrews: false, crews: crews, memberIDs: crews.flatMap { crewMembers?[$0.name] ?? [] },
                        membersByCrew: Dictionary(uniqueKeysWithValues: crews.map { ($0.name, crewMembers?[$0.name] ?? []) }))
    }

    func crews(containing user: DirectoryUser) throws -> [Crew] {
        questions.append("crews of \(user.uid)")
        return (crewMembers ?? [:]).filter { $0.value.contains(user.uid) }.keys.sorted().map(crew)
    }


    func forEachCrew(_ body: (Crew) throws -> Void) throws {
        questions.append("crews")
        for name in (crewMembers ?? [:]).keys.sorted() { try body(crew(name)) }
    }

    func crew(named name: String) throws -> Crew? {
        questions.append("crew \(name)")
        return crewMembers?[name] == nil ? nil : crew(name)
    }

    func memberIDs(of crew: Crew) throws -> [String] {
        questions.append("members \(crew.name)")
        return crewMembers?[crew.name] ?? []
    }
}
