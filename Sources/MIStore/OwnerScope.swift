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
