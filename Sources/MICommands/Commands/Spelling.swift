/// "Did you mean" for a mistyped command word (at the prompt, and after `help`), as
/// swift-argument-parser offers for options.
public enum Spelling {
    /// The known word nearest to `typed` by edit distance, when it is near enough to be a typo
    /// (at most a third of the word's letters, at least one); ties go to the first in `known`.
    public static func closest(to typed: String, among known: [String]) -> String? {
        let typed = typed.lowercased()
        guard !typed.isEmpty else { return nil }
        let limit = max(1, typed.count / 3)
        var best: (word: String, distance: Int)?
        for word in known {
            if word.hasPrefix(typed) && typed.count >= 2 { return word }  // `notif` for `notifications`
            let distance = editDistance(typed, word)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (word, distance) }
        }
        return best?.word
    }

    /// Levenshtein distance with adjacent transpositions (`mvoe` is one step from `move`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            previous2 = previous
            previous = current
        }
        return previous[b.count]
    }
}
