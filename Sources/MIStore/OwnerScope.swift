import Foundation
import Synchronization

/// Whose forms a process may see and change through this store: everybody's, or those of a set
/// of owners — the technicians of the crews a foreman leads (docs/security.md).
///
/// The console sets it after login, with its crews (``FormStore/reach``); from then on every form
/// query begins with its condition (``FormQuery``) and every change checks the form's owner (and a move's target)
/// inside the change's own transaction, so a form moved out of the crew between a look and a
/// change is refused, not changed. A refusal changes nothing and names the crews.
public struct OwnerScope: Sendable, Equatable {
    /// The owners allowed (normalized to NFC), or nil for every owner.
    public let owners: Set<String>?
    /// The crews the owners come from, as refusals name them.
    public let crews: [String]

    /// No limit: support staff, site leads, foremen where the site configures no crews.
    public static let everyone = OwnerScope(owners: nil, crews: [])

    public init(owners: Set<String>, crews: [String]) {
        self.owners = Set(owners.map(\.nfc))
        self.crews = crews
    }

    private init(owners: Set<String>?, crews: [String]) {
        self.owners = owners
        self.crews = crews
    }

    public var isEveryone: Bool { owners == nil }

    public func allows(_ owner: String) -> Bool {
        guard let owners else { return true }
        return owners.contains(owner.nfc)
    }

    /// Throws `.forbidden` unless `owner` is in scope: `t00011 is not in your crews (Kolonne Nord)`.
    public func check(_ owner: String) throws {
        guard !allows(owner) else { return }
        throw StoreError(.forbidden, refusal(owner))
    }

    /// The refusal's words for `owner`.
    public func refusal(_ owner: String) -> String {
        "\(owner) is not in your crews (\(ledCrews))"
    }

    /// The crews led, as every refusal names them: `Kolonne Nord, Kolonne Süd`, or `you lead none`.
    public var ledCrews: String {
        crews.isEmpty ? "you lead none" : crews.joined(separator: ", ")
    }

    /// Above this many owners the condition passes them as one JSON array instead of one
    /// placeholder each (SQLite allows 32,766 variables a statement, PostgreSQL 65,535).
    static let placeholderLimit = 5_000

    /// `column IN (...)` for the scope, or nil for everyone. The owners are arguments, never SQL.
    /// Every form query has it through ``FormQuery``.
    func condition(_ column: StoreSQL) -> StoreSQL? {
        guard let owners else { return nil }
        guard !owners.isEmpty else { return "1 = 0" }
        let sorted = owners.sorted()
        if sorted.count <= Self.placeholderLimit {
            return "\(column) IN (\(sorted.map { "\($0)" as StoreSQL }.joined(separator: ", ")))"
        }
        let array = JSONWriter.compact(.array(sorted.map(JSONValue.string)))
        return StoreSQL(sqlite: "\(column) IN (SELECT value FROM json_each(\(array)))",
                        postgres: "\(column) IN (SELECT json_array_elements_text(\(array)::json))")
    }
}

extension StoreError.Kind {
    /// The form's owner (or a move's target) is outside the session's ``OwnerScope``.
    public static let forbidden = StoreError.Kind(rawValue: "forbidden")
}

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

    init(_ reach: Reach, ownerColumn: StoreSQL = "forms.owner") {
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

    /// The live form `ref` names, found as ``FormRecord/find(_:owner:reach:in:)`` finds it,
    /// within the reach. One answer outside it, whatever the store holds: `owner/name` of an
    /// owner outside is refused by the owner (`.forbidden`, naming the crews) before anything is
    /// read; an id whose form is outside is not read, and answered as a missing id is.
    func find(_ ref: FormReference, owner: String? = nil, in db: any StoreDatabase) throws -> FormRecord {
        try checkOwner(of: ref)
        return try FormRecord.find(ref, owner: owner, reach: reachCondition, in: db)
    }

    /// The head of the live form `ref` names (``FormHead``: no content), with the one answer
    /// outside the reach of ``find(_:owner:in:)``.
    func findHead(_ ref: FormReference, in db: any StoreDatabase) throws -> FormHead {
        try checkOwner(of: ref)
        return try FormHead.find(ref, reach: reachCondition, in: db)
    }

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

/// Some owners, or all but some: which forms a crew's own policy (`policy set --team`) applies to
/// (``OwnerPolicies/selections(by:)``).
public enum OwnerSelection: Sendable, Hashable {
    case only(Set<String>)
    case except(Set<String>)

    /// `column IN (…)` / `NOT (column IN (…))`; nil for "all but none".
    func condition(_ column: StoreSQL) -> StoreSQL? {
        switch self {
        case .only(let owners):
            return OwnerScope(owners: owners, crews: []).condition(column)
        case .except(let owners):
            guard !owners.isEmpty, let condition = OwnerScope(owners: owners, crews: []).condition(column) else { return nil }
            return "NOT (\(condition))"
        }
    }
}
