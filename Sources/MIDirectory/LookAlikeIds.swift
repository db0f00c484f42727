import Foundation
import MIText

/// Directory user ids that differ as the directory gives them but look the same to a reader: the
/// same text once normalized (Unicode NFC: `müller` with U+00FC and `mu` + U+0308 + `ller`), or
/// the same but for letters of another script that look like Latin ones (`jdoe` and `jdоe`
/// with a Cyrillic о): equal confusable skeletons (``Skeleton``). A directory keeps them as two
/// accounts with two passwords, while a foreman moving forms to `jdоe` reads `jdoe`, and the
/// console keeps one owner per normalized id, so the second account would see and change the
/// first one's forms. Such ids are never merged: a login, a move target or a listing that meets
/// them is refused, naming both, until the directory's administrators rename one.
public struct LookAlikeIds: Sendable, Equatable {
    /// The ids as the directory gives them (two or more), sorted.
    public let ids: [String]

    /// The first group of distinct ids in `ids` that look alike, or nil.
    /// (Swift's `==` calls canonically equivalent strings equal, so ids are told apart by their
    /// scalars, as the directory does.)
    public static func find(in ids: [String]) -> LookAlikeIds? {
        var byKey: [String: [String]] = [:]
        for id in ids where !(byKey[key(id)] ?? []).contains(where: { sameScalars($0, id) }) {
            byKey[key(id), default: []].append(id)
        }
        return byKey.values.filter { $0.count > 1 }
            .map { LookAlikeIds(ids: $0.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) }
            .min { Array($0.ids[0].utf8).lexicographicallyPrecedes(Array($1.ids[0].utf8)) }
    }

    /// Whether two ids are the same scalars (not merely canonically equivalent).
    static func sameScalars(_ a: String, _ b: String) -> Bool { a.unicodeScalars.elementsEqual(b.unicodeScalars) }

    /// What look-alike ids share: the confusable skeleton (case is the directory's own affair).
    static func key(_ id: String) -> String { Skeleton.of(id) }

    /// The spellings of `value` a look-up asks the directory for, so that a look-alike account
    /// is met and refused rather than missed: as given, composed (NFC) and decomposed (NFD), its
    /// skeleton and the skeleton with one letter in another script (``Skeleton/lookAlikeSpellings(of:limit:)``),
    /// without repeats.
    static func spellings(of value: String) -> [String] {
        var seen: [String] = []
        let lookAlikes = Skeleton.lookAlikeSpellings(of: value)
        for spelling in [value, value.precomposedStringWithCanonicalMapping, value.decomposedStringWithCanonicalMapping]
            + lookAlikes.flatMap({ [$0, $0.decomposedStringWithCanonicalMapping] })
        where !seen.contains(where: { $0.unicodeScalars.elementsEqual(spelling.unicodeScalars) }) {
            seen.append(spelling)
        }
        return seen
    }

    /// Each id with its characters beyond ASCII spelled out (`mu\u{308}ller`, `jd\u{43e}e`),
    /// so the two can be told apart on a terminal.
    public var message: String {
        let shown = ids.map { id in
            "'" + id.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() + "'"
        }
        return "the directory has accounts whose user ids look alike, differing only in Unicode normalization "
            + "or in letters of another script that look the same ("
            + shown.joined(separator: " and ")
            + "); miadmin keeps one owner per person and will not merge them: the directory's administrators must rename one"
    }
}

/// A listing's look-alike check, streamed over any number of users in memory that does not
/// grow with them. Two distinct ids share a skeleton only if one of them is not its own skeleton
/// (printable ASCII always is), so the watch keeps only the ids that are not (few: ids beyond
/// ASCII that normalization or the look-alike table changes), by skeleton. A pair of two such
/// ids is found among them; an id that is its own skeleton is checked against them as it comes.
/// What no kept state can tell is an id that is its own skeleton listed *before* a kept id of
/// that skeleton: the listing asks the directory for the skeletons it kept
/// (``takeSkeletonsToAsk()``, then ``lookAlike(amongFound:)``) with its own filter, which finds
/// such an entry wherever it comes in the listing. A set of every id's hash (8 bytes a user,
/// 3 MiB with its growth at 100,000 users) was the price of not asking.
struct LookAlikeWatch {
    /// Ids that are not their own skeleton, by their skeleton.
    private var others: [String: String] = [:]
    /// Skeletons of kept ids not yet asked of the directory.
    private var unasked: [String] = []

    /// The look-alike pair `id` completes with an id seen before, or nil.
    mutating func add(_ id: String) -> LookAlikeIds? {
        let key = LookAlikeIds.key(id)
        guard let earlier = others[key] else {
            if !LookAlikeIds.sameScalars(key, id) {
                others[key] = id
                unasked.append(key)
            }
            return nil
        }
        // The same id listed twice (two entries) is not a pair.
        return LookAlikeIds.sameScalars(earlier, id) ? nil : LookAlikeIds.find(in: [earlier, id])
    }

    /// How many skeletons wait to be asked of the directory.
    var skeletonsWaiting: Int { unasked.count }

    /// The skeletons of the ids kept since the last call, to look up as ids in the directory.
    mutating func takeSkeletonsToAsk() -> [String] {
        defer { unasked = [] }
        return unasked
    }

    /// The look-alike pair among the ids the directory found for asked skeletons and the kept
    /// ids, or nil. The directory may answer more than was asked (it matches ids without case,
    /// some also without normalization): only equal skeletons make a pair.
    func lookAlike(amongFound ids: [String]) -> LookAlikeIds? {
        for id in ids {
            if let kept = others[LookAlikeIds.key(id)], !LookAlikeIds.sameScalars(kept, id) {
                return LookAlikeIds.find(in: [kept, id])
            }
        }
        return nil
    }
}
