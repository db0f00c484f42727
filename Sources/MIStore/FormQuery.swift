import Foundation

/// The forms a session reaches, as the `WHERE` clause of a form query: the one way a listing,
/// a count, a lookup by id or name, the candidates of expire and purge, export or reminders
/// select forms. It cannot be made without the session's ``Reach`` (``FormStore/formQuery(ownerColumn:)``),
/// and it begins with the reach's condition, so an operation written with it sees only the
/// forms of the owners the session reaches, and one that adds conditions cannot drop it.
struct FormQuery {
    /// Whose forms: the reach's scope, checked again on a form found by reference.
    let scope: OwnerScope
    /// The owner column as the statement names it (`forms.owner`, or `owner` in a statement on
    /// `forms` alone).
    let ownerColumn: StoreSQL
    private var conditions: [StoreSQL]

    fileprivate init(_ reach: Reach, ownerColumn: StoreSQL = "forms.owner") {
        scope = reach.scope
        self.ownerColumn = ownerColumn
        conditions = reach.scope.condition(ownerColumn).map { [$0] } ?? []
    }

    /// Narrows the query by `condition`.
    mutating func add(_ condition: StoreSQL) {
        conditions.append(condition)
    }

    /// Narrows the query to the owners `selection` names (nothing for nil, or all but none).
    mutating func add(_ selection: OwnerSelection?) {
        if let condition = selection?.condition(ownerColumn) { conditions.append(condition) }
    }

    /// This query narrowed by `condition`.
    func adding(_ condition: StoreSQL) -> FormQuery {
        var query = self
        query.add(condition)
        return query
    }

    /// This query narrowed to `selection`'s owners.
    func adding(_ selection: OwnerSelection?) -> FormQuery {
        var query = self
        query.add(selection)
        return query
    }

    /// Every condition joined with `AND`, for after `WHERE` (`1 = 1` when the reach is everyone
    /// and nothing was added).
    var condition: StoreSQL {
        conditions.isEmpty ? "1 = 1" : conditions.map { "(\($0))" as StoreSQL }.joined(separator: " AND ")
    }

    /// The live form `ref` names, found within the reach (``row(_:columns:owner:reach:in:)``).
    /// One answer outside it, whatever the store holds: `owner/name` of an owner outside is
    /// refused by the owner (`.forbidden`, naming the crews) before anything is read; an id
    /// whose form is outside is not read, and answered as a missing id is.
    func find(_ ref: FormReference, owner: String? = nil, in db: any StoreDatabase) throws -> FormRecord {
        try checkOwner(of: ref)
        return try FormRecord(row: Self.row(ref, columns: FormRecord.columns, owner: owner, reach: reachCondition, in: db))
    }

    /// The head of the live form `ref` names (``FormHead``: no content), with the one answer
    /// outside the reach of ``find(_:owner:in:)``.
    func findHead(_ ref: FormReference, in db: any StoreDatabase) throws -> FormHead {
        try checkOwner(of: ref)
        return try FormHead(row: Self.row(ref, columns: FormHead.columns, owner: nil, reach: reachCondition, in: db))
    }

    /// Every form, whatever the session's reach: for what the store does on the whole site's
    /// behalf and never shows the console (`deliver` sends the whole queue whoever runs it).
    static var wholeStore: FormQuery { FormQuery(.everyone) }

    /// The trashed form `ref` names (``FormStore/findTrashed(_:reach:in:)``), with the one
    /// answer outside the reach of ``find(_:owner:in:)``.
    func findTrashed(_ ref: FormReference, in db: any StoreDatabase) throws -> FormRecord {
        try checkOwner(of: ref)
        return try FormStore.findTrashed(ref, reach: reachCondition, in: db)
    }

    /// Refuses `owner/name` of an owner outside the reach (`.forbidden`, naming the crews),
    /// whether or not such a form exists; an id passes (its form is looked for within the reach).
    func checkOwner(of ref: FormReference) throws {
        if case .path(let owner, _) = ref { try scope.check(owner) }
    }

    /// The reach's condition alone (`1 = 1` for everyone), for a lookup by id or name.
    var reachCondition: StoreSQL { scope.condition(ownerColumn) ?? "1 = 1" }
}

extension FormStore {
    /// A form query over the forms the session's ``reach`` reaches: every form query starts here.
    func formQuery(ownerColumn: StoreSQL = "forms.owner") -> FormQuery {
        FormQuery(reach, ownerColumn: ownerColumn)
    }
}

extension FormQuery {
    /// The row of the live form `ref` names, with `columns` (which include `forms.owner`), or
    /// `.notFound`. With `owner`, a form of anybody else is not found either, with the very
    /// message of a missing one (technicians: see `Session.visibleOwner`); so is a form outside
    /// `reach` (a ``FormQuery``'s condition). Both are conditions of the statement, so a row
    /// outside them is not read at all. Only a ``FormQuery`` calls it.
    fileprivate static func row(_ ref: FormReference, columns: StoreSQL, owner: String?, reach: StoreSQL,
                                in db: any StoreDatabase) throws -> StoreRow {
        let owned: StoreSQL = owner.map { "forms.owner = \($0)" } ?? "1 = 1"
        let row: StoreRow?
        switch ref {
        case .id(let id):
            row = try db.row(literal: """
                SELECT \(columns), forms.trashed_at FROM forms WHERE id = \(id) AND (\(reach)) AND (\(owned))
                """)
            if let row, row["trashed_at"] as Double? != nil {
                throw StoreError(.notFound, "Form \(id) is in the trash.")
            }
        case .path(let pathOwner, let name):
            row = try db.row(literal: """
                SELECT \(columns) FROM forms WHERE owner = \(pathOwner) AND name = \(name) AND trashed_at IS NULL \
                AND (\(reach)) AND (\(owned))
                """)
        }
        guard let row else { throw StoreError.noSuchForm(ref) }
        return row
    }
}
