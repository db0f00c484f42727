import MIDirectory
import MIStore

/// A technician's row of `workload` (and of a crew's members): who, and their open work.
public struct TechnicianWorkload: Sendable, Hashable {
    public let uid: String
    /// The name in the directory; nil for an owner of forms the directory does not list as a
    /// technician (gone, or never given the role).
    public let name: String?
    public let workload: OwnerWorkload
}

extension Session {
    /// The workload of `technicians` (the directory's, by uid) and of every other owner with
    /// live forms passing `filter`, by uid: a technician with no form has a row of zeros, an
    /// owner the directory does not list is kept (their forms still need someone). Each owner's
    /// policy gives the expiry (the store computes it).
    ///
    /// `workload` passes the technicians its `--owner` covers; a crew's listing can pass its
    /// members and a filter limited to them.
    public func workloads(of technicians: [DirectoryUser], _ filter: FormFilter = FormFilter(),
                          ownerMatches: (String) -> Bool = { _ in true }) throws -> [TechnicianWorkload] {
        let policies = try ownerPolicies()
        var rows: [String: TechnicianWorkload] = [:]
        for user in technicians {
            rows[user.uid] = TechnicianWorkload(uid: user.uid, name: user.name, workload: OwnerWorkload(owner: user.uid))
        }
        for workload in try store().listing.workload(filter, policies: policies) where ownerMatches(workload.owner) {
            let name = rows[workload.owner]?.name
            rows[workload.owner] = TechnicianWorkload(uid: workload.owner, name: name, workload: workload)
        }
        return rows.values.sorted { $0.uid.utf8.lexicographicallyPrecedes($1.uid.utf8) }
    }
}
