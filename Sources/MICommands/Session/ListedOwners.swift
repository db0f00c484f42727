import MIDirectory
import MIStore

/// Whose forms a listing covers (`forms`, `workload`): nobody in particular, one user id, or a
/// glob on user ids (`'u0000*'`, as `users` takes one), after the rule that technicians see
/// only their own (``Session/visibleOwner(asked:)``).
struct ListedOwners {
    /// The owner asked for, as the session allows it (a technician's own uid).
    let owner: String?
    /// The crews the session acts for: technicians outside them are never listed.
    let scope: OwnerScope

    init(asked: String?, in session: Session) throws {
        owner = try session.visibleOwner(asked: asked)
        scope = try session.crewReach().scope
    }

    /// The glob, when `owner` is one (not a literal uid).
    var glob: Glob? { owner.map(Glob.init).flatMap { $0.isLiteral ? nil : $0 } }

    /// The owner filters to run the store's listing with, one after the other: the one owner
    /// (or nil: everybody), or for a glob each owner in the store it matches (with forms
    /// passing `filter`'s other conditions), in owner order.
    func storeOwners(_ store: any StoreListing, _ filter: FormFilter) throws -> [String?] {
        guard let glob else { return [owner] }
        var anyOwner = filter
        anyOwner.owner = nil
        return try store.countForms(by: .owner, anyOwner).map(\.value).filter(glob.matches).sorted()
    }

    /// The directory's technicians this selection covers, by uid: everybody's, the one user's
    /// (when a technician), or those whose uid the glob matches; within the session's crews, and
    /// among `owners` when given (a crew: `--team`).
    func technicians(_ directory: any DirectoryService, among owners: Set<String>? = nil) throws -> [DirectoryUser] {
        var found: [DirectoryUser] = []
        try forEachTechnician(directory, among: owners) { found.append($0) }
        return found.sorted { $0.uid.utf8.lexicographicallyPrecedes($1.uid.utf8) }
    }

    /// The uids of ``technicians(_:among:)`` except those in `excluded`, in the same order. Only
    /// the uids are kept, never the entries: a count by owner over a whole directory of a hundred
    /// thousand technicians holds their names, not their records.
    func technicianIDs(_ directory: any DirectoryService, among owners: Set<String>? = nil,
                       excluding excluded: Set<String>) throws -> [String] {
        var found: [String] = []
        try forEachTechnician(directory, among: owners) { user in
            if !excluded.contains(user.uid) { found.append(user.uid) }
        }
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Each technician of ``technicians(_:among:)`` as the directory gives it, in no order.
    private func forEachTechnician(_ directory: any DirectoryService, among owners: Set<String>?,
                                   _ body: (DirectoryUser) throws -> Void) throws {
        func take(_ user: DirectoryUser) throws {
            if scope.allows(user.uid) && (owners?.contains(user.uid) ?? true) { try body(user) }
        }
        if let owners, owner == nil {
            // One crew: its members, each looked up, rather than a listing of the directory.
            for uid in owners.sorted() {
                if let user = try directory.user(uid: uid), user.roles.contains(.technician) { try take(user) }
            }
        } else if let owner, glob == nil {
            if let user = try directory.user(uid: owner), user.roles.contains(.technician) { try take(user) }
        } else if let crew = scope.owners, glob == nil {
            // A foreman's crews: their members, not the directory.
            for uid in crew.sorted() {
                if let user = try directory.user(uid: uid), user.roles.contains(.technician) { try take(user) }
            }
        } else {
            try directory.forEachUser(matching: glob, role: .technician) { user in
                // The directory's glob also matches names; an owner is a uid.
                if glob?.matches(user.uid) ?? true { try take(user) }
            }
        }
    }
}
