import Foundation

/// Directory user ids that differ as the directory gives them but are the same text once
/// normalized (Unicode NFC): `müller` with U+00FC and `mu` + U+0308 + `ller`. A directory such as
/// Active Directory keeps them as two accounts with two passwords, while the console keeps one
/// owner per normalized id, so the second account would see and change the first one's forms.
/// Such ids are never merged: a login or a listing that meets them is refused, naming both,
/// until the directory's administrators rename one.
public struct LookAlikeIds: Sendable, Equatable {
    /// The ids as the directory gives them (two or more), sorted.
    public let ids: [String]

    /// The first group of distinct ids in `ids` that normalize to the same text, or nil.
    /// (Swift's `==` calls canonically equivalent strings equal, so ids are told apart by their
    /// scalars, as the directory does.)
    public static func find(in ids: [String]) -> LookAlikeIds? {
        var byNormalized: [String: [String]] = [:]
        for id in ids where !(byNormalized[normalized(id)] ?? []).contains(where: { sameScalars($0, id) }) {
            byNormalized[normalized(id), default: []].append(id)
        }
        return byNormalized.values.filter { $0.count > 1 }
            .map { LookAlikeIds(ids: $0.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) }
            .min { Array($0.ids[0].utf8).lexicographicallyPrecedes(Array($1.ids[0].utf8)) }
    }

    /// Whether two ids are the same scalars (not merely canonically equivalent).
    static func sameScalars(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }

    /// The same id in NFC, as the store keeps owners (case is the directory's own affair). An
    /// ASCII id is its own NFC: Foundation's normalization is not called (nor loaded) for it.
    static func normalized(_ id: String) -> String { isASCII(id) ? id : id.precomposedStringWithCanonicalMapping }

    static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `value` as given, composed (NFC) and decomposed (NFD), without repeats.
    static func spellings(of value: String) -> [String] {
        if isASCII(value) { return [value] }
        var seen: [String] = []
        for spelling in [value, value.precomposedStringWithCanonicalMapping, value.decomposedStringWithCanonicalMapping]
        where !seen.contains(where: { $0.unicodeScalars.elementsEqual(spelling.unicodeScalars) }) {
            seen.append(spelling)
        }
        return seen
    }

    /// Each id with its characters beyond ASCII spelled out (`mu\u{308}ller`), so the two can be
    /// told apart on a terminal.
    public var message: String {
        let shown = ids.map { id in
            "'" + id.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() + "'"
        }
        return "the directory has accounts whose user ids differ only in Unicode normalization ("
            + shown.joined(separator: " and ")
            + "); miadmin keeps one owner per person and will not merge them: the directory's administrators must rename one"
    }
}

/// A listing's look-alike check, streamed over any number of users: each id's normalized form is
/// kept as its 64-bit hash in a set (8 bytes a user, no string), and only ids beyond ASCII keep
/// their text (few: an ASCII id is its own NFC). Two ids normalize alike only if one of them is
/// beyond ASCII, so a repeated hash finds the other id among those, or is the ASCII id the
/// newcomer normalizes to.
struct LookAlikeWatch {
    private var hashes: Set<Int> = []
    /// Ids beyond ASCII, by their normalized form.
    private var beyondASCII: [String: String] = [:]

    /// The look-alike pair `id` completes with an id seen before, or nil.
    mutating func add(_ id: String) -> LookAlikeIds? {
        let ascii = LookAlikeIds.isASCII(id)
        let key = LookAlikeIds.normalized(id)
        let other: String?
        if hashes.insert(key.hashValue).inserted {
            other = nil
        } else if let earlier = beyondASCII[key] {
            other = earlier
        } else {
            // The earlier id is ASCII, so it is its own normalized form: `key` itself (an equal
            // hash of two different ids, one chance in 2^64 per pair, is taken for it too).
            other = !ascii && LookAlikeIds.isASCII(key) ? key : nil
        }
        if !ascii, beyondASCII[key] == nil { beyondASCII[key] = id }
        guard let other, !LookAlikeIds.sameScalars(other, id) else { return nil }
        return LookAlikeIds.find(in: [other, id])
    }
}
