import Foundation

/// One owner's open work (`workload`, and a crew's members): the live forms still to be done
/// and to be looked at, the oldest open one and the next expiry.
public struct OwnerWorkload: Sendable, Hashable {
    public let owner: String
    public let incomplete: Int
    public let completed: Int
    /// `created` of the oldest incomplete form.
    public let oldestIncomplete: Date?
    /// When the first of the incomplete forms expires under the owner's policy (``OwnerPolicies/expires(_:)``).
    public let nextExpiry: Date?

    public init(owner: String, incomplete: Int = 0, completed: Int = 0, oldestIncomplete: Date? = nil, nextExpiry: Date? = nil) {
        self.owner = owner
        self.incomplete = incomplete
        self.completed = completed
        self.oldestIncomplete = oldestIncomplete
        self.nextExpiry = nextExpiry
    }
}

extension FormStore {
    /// The workload of each owner with live forms matching `filter` (its owner, state,
    /// template and date filters; not `answerText`), by owner, in one aggregate query. An owner with no such form is not in the
    /// result; the caller adds the directory's technicians with none. Each owner's next expiry
    /// is by his own policy (``ownerPolicies(defaults:)``).
    public func workload(_ filter: FormFilter = FormFilter(), policies: OwnerPolicies) throws -> [OwnerWorkload] {
        let condition = sqlCondition(filter)
        // The earliest clock start of the owner's incomplete forms (``Expiry/clockStart``), spelled
        // with CASE: SQLite's two-argument MAX is PostgreSQL's GREATEST.
        let sql: StoreSQL = """
            SELECT owner,
                   COUNT(CASE WHEN state = 'incomplete' THEN 1 END) AS incomplete,
                   COUNT(CASE WHEN state = 'completed' THEN 1 END) AS completed,
                   MIN(CASE WHEN state = 'incomplete' THEN created_utc END) AS oldest,
                   MIN(CASE WHEN state = 'incomplete' THEN
                           CASE WHEN expiry_reset_at > created_utc THEN expiry_reset_at ELSE created_utc END END) AS clock
            FROM forms WHERE \(condition) GROUP BY owner ORDER BY owner
            """
        guard filter.answerText == nil else {
            throw StoreError(.invalidInput, "A workload counts forms by their state, not by their answers.")
        }
        return try readListing { db in
            try db.rows(literal: sql).map { row in
                OwnerWorkload(owner: row["owner"], incomplete: row["incomplete"], completed: row["completed"],
                              oldestIncomplete: (row["oldest"] as Double?).map(Date.init(timeIntervalSince1970:)),
                              nextExpiry: (row["clock"] as Double?).map {
                                  policies.expires(owner: row["owner"], clockStart: Date(timeIntervalSince1970: $0))
                              })
            }
        }
    }
}
