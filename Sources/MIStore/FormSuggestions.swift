import Foundation

extension FormStore {
    /// Which forms a completion offers.
    public enum SuggestionScope: Sendable {
        /// Forms in use (not in the trash): `show`, `move`, `comment`, …
        case live
        /// Forms in the trash: `restore`.
        case trashed
    }

    /// Completions for a partly typed form reference, for the prompt's Tab key: `jd` gives
    /// owners (`jdoe/`), `jdoe/Pu` gives that owner's form names (`jdoe/Pump station 4`).
    /// Every owner with the prefix is listed (up to `limit`), so an empty word or a prefix many
    /// owners share offers them all. Range queries on the (owner, name) index, so a
    /// million-form store answers at once. `owner` restricts suggestions to one user's forms
    /// (a technician's own).
    public func formReferenceSuggestions(prefix: String, owner: String? = nil, scope: SuggestionScope = .live,
                                         limit: Int = 200) throws -> [String] {
        let prefix = prefix.nfc
        // Every statement below has the session's reach in its condition; the crew branch
        // walks the reach's owners only to seek each one on the index.
        let query = formQuery(ownerColumn: "owner")
            .adding(scope == .live ? "trashed_at IS NULL" : "trashed_at IS NOT NULL")
        return try read { db in
            func holdsForms(_ uid: String) throws -> Bool {
                try db.value(Bool.self, literal: "SELECT EXISTS (SELECT 1 FROM forms WHERE \(query.condition) AND owner = \(uid))") == true
            }
            if let slash = prefix.firstIndex(of: "/") {
                let who = String(prefix[..<slash])
                let namePrefix = String(prefix[prefix.index(after: slash)...])
                if let owner, owner != who { return [] }
                guard query.scope.allows(who) else { return [] }
                let names = try db.rows(literal: """
                    SELECT DISTINCT name FROM forms
                    WHERE \(query.condition) AND owner = \(who) AND name >= \(namePrefix) AND name < \(namePrefix + "\u{10FFFF}")
                    ORDER BY name LIMIT \(limit)
                    """).map { $0["name"] as String }
                return names.map { "\(who)/\($0)" }
            }
            if let crew = query.scope.owners {
                // A foreman's crews: their members who hold forms, not a walk over every owner.
                var found: [String] = []
                for uid in crew.filter({ $0.hasPrefix(prefix) && (owner == nil || $0 == owner) }).sorted()
                where found.count < limit {
                    if try holdsForms(uid) { found.append(uid + "/") }
                }
                return found
            }
            if let owner {
                guard owner.hasPrefix(prefix), try holdsForms(owner) else { return [] }
                return [owner + "/"]
            }
            // Distinct owners by skipping through the index: one seek per owner, each strictly
            // after the last one found. (Not `>= last + "\0"`: SQLite reads a bound string up to
            // its first NUL, so that seek found the same owner again and again.)
            var owners: [String] = []
            var last: String?
            while owners.count < limit {
                let after: StoreSQL = last.map { "owner > \($0)" as StoreSQL } ?? "owner >= \(prefix)"
                let found = try db.value(String.self, literal: """
                    SELECT owner FROM forms WHERE \(query.condition) AND \(after) AND owner < \(prefix + "\u{10FFFF}")
                    ORDER BY owner LIMIT 1
                    """)
                guard let found else { break }
                owners.append(found + "/")
                last = found
            }
            return owners
        }
    }
}
