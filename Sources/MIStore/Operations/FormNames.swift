
/// The device's naming rule: one owner never has two live forms of one name; a form arriving
/// under a taken name becomes `Base (k)` with the smallest free k >= 2, where `Base` is the name
/// without an existing ` (n)` suffix (so `Pump (2)` onto a holder of `Pump (2)` is `Pump (3)`).
enum FormNames {
    /// Splits `Pump (12)` into (`Pump`, 12); a name without such a suffix is its own base.
    /// The suffix number has no leading zero; the base is never empty.
    static func split(_ name: String) -> (base: String, number: Int?) {
        guard name.hasSuffix(")"), let open = name.range(of: " (", options: .backwards) else { return (name, nil) }
        let digits = name[open.upperBound..<name.index(before: name.endIndex)]
        guard let first = digits.first, first != "0", digits.count <= 9,
              digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits) else { return (name, nil) }
        let base = String(name[..<open.lowerBound])
        return base.isEmpty ? (name, nil) : (base, number)
    }

    /// The name `name` takes under `owner`: itself when free, else `Base (k)`.
    ///
    /// One query on the index of live `forms(owner, name)`: the exact name, and the range of
    /// names starting with `Base (` (everything from `Base (` up to, not including, `Base )`)
    /// only when the exact name is taken. The range's condition does not depend on its rows, so
    /// both engines test it once before the range is read (SQLite before its loop, PostgreSQL as
    /// a one-time filter), and a free name (nearly every move) reads that one index entry: on
    /// PostgreSQL a serializable move then overlaps no other move's reads for names it did not need.
    static func freeName(for name: String, owner: String, in db: any StoreDatabase) throws -> String {
        let base = split(name).base
        let taken = try db.values(String.self, literal: takenQuery(owner: owner, name: "\(name)",
                                                                   from: "\(base + " (")", to: "\(base + " )")"))
        return freeName(for: name, taken: taken)
    }

    /// The query of ``freeName(for:owner:in:)``: `owner`'s live names equal to `name` and, when
    /// that one is taken, those from `from` up to, not including, `to` (a range that holds every
    /// `Base (k)`). The bounds are SQL, so a move can compute them in its lookup (``MoveLookup``).
    static func takenQuery(owner: String, name: StoreSQL, from: StoreSQL, to: StoreSQL) -> StoreSQL {
        """
        SELECT name FROM forms WHERE owner = \(owner) AND name = \(name) AND trashed_at IS NULL
        UNION ALL
        SELECT name FROM forms
        WHERE owner = \(owner) AND name >= \(from) AND name < \(to) AND trashed_at IS NULL
          AND EXISTS (SELECT 1 FROM forms WHERE owner = \(owner) AND name = \(name) AND trashed_at IS NULL)
        """
    }

    /// The name `name` takes when `taken` holds the owner's live names it could clash with
    /// (those of ``takenQuery(owner:name:from:to:)``, or more).
    static func freeName(for name: String, taken candidates: [String]) -> String {
        let base = split(name).base
        // Byte for byte, as the store compares names (Swift's == would also match another
        // normalization of the same text).
        guard candidates.contains(where: { $0.utf8.elementsEqual(name.utf8) }) else { return name }
        var numbers = Set<Int>()
        for candidate in candidates {
            let (candidateBase, number) = split(candidate)
            if let number, candidateBase == base { numbers.insert(number) }
        }
        var k = 2
        while numbers.contains(k) { k += 1 }
        return "\(base) (\(k))"
    }
}
