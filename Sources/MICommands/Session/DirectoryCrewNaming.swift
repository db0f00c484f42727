import Foundation
import MIDirectory
import MIStore

/// The store's questions about crews (``CrewNaming``), answered from the directory with the
/// service account: which crews an owner works in (audit rows), which foremen hear of a form
/// moved into their crew, who is in a crew with a policy of its own. Each owner's crews and each
/// crew's members are read once, until the session reads its crews again (a new naming).
///
/// The store asks from inside its write transactions, on the thread running the command; the
/// lock keeps the caches whole should another thread ever ask.
final class DirectoryCrewNaming: CrewNaming, @unchecked Sendable {
    private let directory: any DirectoryService
    private let lock = NSLock()
    private var crewsOfOwner: [String: [Crew]] = [:]
    private var membersOfCrew: [Crew: Set<String>] = [:]
    private var membersOfCrewNamed: [String: [String]?] = [:]

    init(directory: any DirectoryService) {
        self.directory = directory
    }

    func crews(of owner: String) throws -> [String] {
        try lock.withLock { try crewList(owner).map(\.name) }
    }

    func foremenToTell(movedFrom previous: String, to owner: String, actor: String) throws -> [CrewForemanToTell] {
        try lock.withLock {
            var told: [CrewForemanToTell] = []
            func tell(_ crew: Crew, cameIn: Bool) throws {
                for foreman in try foremen(of: [crew], except: actor) {
                    let index = told.firstIndex { $0.foreman == foreman } ?? {
                        told.append(CrewForemanToTell(foreman: foreman))
                        return told.count - 1
                    }()
                    if cameIn { told[index].into.append(crew.name) } else { told[index].from.append(crew.name) }
                }
            }
            for crew in try crewList(owner) where !(try members(crew).contains(previous.lowercased())) {
                try tell(crew, cameIn: true)
            }
            // Every crew the form's technician works in: a foreman hears of his technician's form
            // given away whichever of his crews did it.
            for crew in try crewList(previous) { try tell(crew, cameIn: false) }
            return told
        }
    }

    func members(ofCrew name: String) throws -> [String]? {
        try lock.withLock {
            if let known = membersOfCrewNamed[name] { return known }
            let members = try directory.crew(named: name).map { try directory.memberIDs(of: $0) }
            membersOfCrewNamed[name] = .some(members)
            return members
        }
    }

    func foremen(supervising owner: String) throws -> [String] {
        try lock.withLock { try foremen(of: try crewList(owner), except: owner) }
    }

    /// The members of `crews` who are foremen, each once, `except` left out.
    private func foremen(of crews: [Crew], except: String) throws -> [String] {
        var foremen: [String] = []
        for crew in crews {
            for uid in try members(crew).sorted() where uid != except.lowercased() {
                guard let user = try directory.user(uid: uid), user.has(.foreman), !foremen.contains(user.uid) else { continue }
                foremen.append(user.uid)
            }
        }
        return foremen
    }

    private func crewList(_ owner: String) throws -> [Crew] {
        let key = owner.lowercased()
        if let known = crewsOfOwner[key] { return known }
        let crews = try directory.user(uid: owner).map { try directory.crews(containing: $0) } ?? []
        crewsOfOwner[key] = crews
        return crews
    }

    private func members(_ crew: Crew) throws -> Set<String> {
        if let known = membersOfCrew[crew] { return known }
        let members = Set(try directory.memberIDs(of: crew).map { $0.lowercased() })
        membersOfCrew[crew] = members
        return members
    }
}
