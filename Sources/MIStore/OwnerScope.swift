import Foundation
import Synchronization

/// Whose forms a process may see and change through this store: everybody's, or those of a set
/// of owners — the technicians of the crews a foreman leads (issue 22, docs/security.md).
///
/// The console sets it after login, with its crews (``FormStore/reach``); from then on every listing
/// adds it to its `WHERE` clause and every change checks the form's owner (and a move's target)
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
    /// `firstNumber`: number the placeholders from it (`?5, ?6`), for a statement that numbers its own.
    func sqlCondition(_ column: String, engine: StoreDialect.Engine, firstNumber: Int? = nil) -> (String, StoreArguments)? {
        guard let owners else { return nil }
        guard !owners.isEmpty else { return ("1 = 0", []) }
        let sorted = owners.sorted()
        if sorted.count <= Self.placeholderLimit {
            let marks = sorted.indices.map { index in firstNumber.map { "?\($0 + index)" } ?? "?" }.joined(separator: ", ")
            return ("\(column) IN (\(marks))", sorted.map { $0 as any StoreValueConvertible })
        }
        let array = JSONWriter.compact(.array(sorted.map(JSONValue.string)))
        let mark = firstNumber.map { "?\($0)" } ?? "?"
        switch engine {
        case .sqlite: return ("\(column) IN (SELECT value FROM json_each(\(mark)))", [array])
        case .postgres: return ("\(column) IN (SELECT json_array_elements_text(\(mark)::json))", [array])
        }
    }
}

extension StoreError.Kind {
    /// The form's owner (or a move's target) is outside the session's ``OwnerScope``.
    public static let forbidden = StoreError.Kind(rawValue: "forbidden")
}

extension FormStore {
    /// The live form `ref` names, found as ``FormRecord/find(_:owner:in:)`` finds it, and in scope.
    func findInScope(_ ref: FormReference, owner: String? = nil, in db: any StoreDatabase) throws -> FormRecord {
        let record = try FormRecord.find(ref, owner: owner, in: db)
        try ownerScope.check(record.owner)
        return record
    }

    /// ``ownerScope``'s condition on `column` appended to `conditions`/`arguments` (nothing for everyone).
    func addScope(_ column: String, to conditions: inout [String], _ arguments: inout StoreArguments) {
        add(ownerScope, on: column, to: &conditions, &arguments)
    }

    /// ``ownerScope``'s condition for a statement whose own placeholders are numbered `?1`…`?(N-1)`:
    /// `AND owner IN (?N, …)` and its arguments to append, or nothing for everyone.
    func scopeClause(_ column: String, firstNumber: Int) -> (sql: String, arguments: StoreArguments) {
        guard let (condition, values) = ownerScope.sqlCondition(column, engine: engine.dialect.engine,
                                                                firstNumber: firstNumber) else { return ("", []) }
        return (" AND " + condition, values)
    }

    /// ``ownerScope``'s condition and `owners` (a crew policy's owners), for a statement numbering
    /// its own placeholders up to `firstNumber - 1`.
    func scopeClause(_ column: String, owners: OwnerSelection?, firstNumber: Int) -> (sql: String, arguments: StoreArguments) {
        let scope = scopeClause(column, firstNumber: firstNumber)
        guard let owners else { return scope }
        let selected = owners.clause(column, engine: engine.dialect.engine, firstNumber: firstNumber + scope.arguments.count)
        return (scope.sql + selected.sql, scope.arguments + selected.arguments)
    }

    /// `scope`'s condition on `column` appended to `conditions`/`arguments` (nothing for everyone).
    func add(_ scope: OwnerScope, on column: String, to conditions: inout [String], _ arguments: inout StoreArguments) {
        guard let (condition, values) = scope.sqlCondition(column, engine: engine.dialect.engine) else { return }
        conditions.append(condition)
        arguments += values
    }
}

/// Some owners, or all but some: which forms a crew's own policy (`policy set --team`) applies to
/// (``OwnerPolicies/selections(by:)``).
public enum OwnerSelection: Sendable, Hashable {
    case only(Set<String>)
    case except(Set<String>)

    /// ` AND column IN (…)` / ` AND NOT (column IN (…))`, placeholders numbered from `firstNumber`;
    /// nothing for "all but none".
    func clause(_ column: String, engine: StoreDialect.Engine, firstNumber: Int) -> (sql: String, arguments: StoreArguments) {
        switch self {
        case .only(let owners):
            let (condition, values) = OwnerScope(owners: owners, crews: []).sqlCondition(column, engine: engine, firstNumber: firstNumber)!
            return (" AND " + condition, values)
        case .except(let owners):
            guard !owners.isEmpty else { return ("", []) }
            let (condition, values) = OwnerScope(owners: owners, crews: []).sqlCondition(column, engine: engine, firstNumber: firstNumber)!
            return (" AND NOT (" + condition + ")", values)
        }
    }
}
