import Foundation
import GRDB

extension FormStore {
    /// Completions for a partly typed form reference, for the prompt's Tab key: `jd` gives
    /// owners (`jdoe/`), `jdoe/Pu` gives that owner's form names (`jdoe/Pump station 4`).
    /// Range queries on the (owner, name) index, so a million-form store answers at once.
    /// `owner` restricts suggestions to one user's forms (a technician's own).
    public func formReferenceSuggestions(prefix: String, owner: String? = nil, limit: Int = 200) throws -> [String] {
        let prefix = prefix.nfc
        return try read { db in
            if let slash = prefix.firstIndex(of: "/") {
                let who = String(prefix[..<slash])
                let namePrefix = String(prefix[prefix.index(after: slash)...])
                if let owner, owner != who { return [] }
                let names = try String.fetchAll(db, sql: """
                    SELECT name FROM forms WHERE trashed_at IS NULL AND owner = ? AND name >= ? AND name < ?
                    ORDER BY name LIMIT ?
                    """, arguments: [who, namePrefix, namePrefix + "\u{10FFFF}", limit])
                return names.map { "\(who)/\($0)" }
            }
            if let owner {
                return owner.hasPrefix(prefix) ? [owner + "/"] : []
            }
            // Distinct owners by skipping through the index: one seek per owner.
            var owners: [String] = []
            var next = prefix
            while owners.count < limit,
                  let found = try String.fetchOne(db, sql: """
                      SELECT owner FROM forms WHERE trashed_at IS NULL AND owner >= ? AND owner < ?
                      ORDER BY owner LIMIT 1
                      """, arguments: [next, prefix + "\u{10FFFF}"]) {
                owners.append(found + "/")
                next = found + "\u{0}"
            }
            return owners
        }
    }
}
