/// One entry from a search: its DN and the values of the attributes asked for.
public struct LDAPEntry: Sendable {
    public let dn: String
    /// The attribute names the search asked for (one array shared by all its entries) and each
    /// one's values, by position: a listing reads 100,000 entries, and a dictionary per entry
    /// cost more than the lookups it saved.
    let names: [String]
    let valueLists: [[String]]

    /// The values of `name` (as the search asked for it); empty when the entry has none.
    public func values(_ name: String) -> [String] {
        names.firstIndex(of: name).map { valueLists[$0] } ?? []
    }

    public func first(_ name: String) -> String? { values(name).first }
}
