import Foundation

/// The confusable skeleton of a text (after Unicode TR39, section 4): two texts with the same
/// skeleton look alike to a reader even where their code points differ. Used to refuse user ids
/// that would pass for one another (Cyrillic `jdоe` beside Latin `jdoe`, NFC beside NFD) and to
/// find a secret word in a line however it is spelled (`ＰＡＳＳＷＯＲＤ`, `pаssword`,
/// `Pass\u{34F}word`).
///
/// The steps: compatibility forms folded (NFKC: fullwidth letters, ligatures, superscripts),
/// default-ignorable code points dropped (zero-width joiners, the combining grapheme joiner,
/// soft hyphens, variation selectors: invisible, so they must not tell two texts apart), each
/// letter with a Latin look-alike replaced by it (``latinLookAlikes``), and the result composed
/// again (NFC). Case is kept: folding it is the caller's choice.
///
/// ``latinLookAlikes`` is a small table of the common look-alikes (Cyrillic, Greek, a few
/// Latin letters beyond ASCII), not Unicode's full `confusables.txt` (about 6,000 entries);
/// it does not map ASCII to ASCII (`0` and `O`, `l` and `1`), which `confusables.txt` does.
public enum Skeleton {
    public static func of(_ text: String) -> String {
        // Printable ASCII is its own skeleton (no compatibility form, nothing ignorable, no
        // entry in the table): most ids, read for every entry of a 100,000-user listing.
        // Otherwise NFKD (the compatibility folding of NFKC, decomposed, which the table's
        // one-scalar lookup needs), the table, then NFC.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars
        where !scalar.properties.isDefaultIgnorableCodePoint {
            if let latin = latinLookAlikes[scalar] { scalars.append(latin) } else { scalars.append(scalar) }
        }
        return String(scalars).precomposedStringWithCanonicalMapping
    }

    /// Whether two texts look alike: equal skeletons.
    public static func lookAlike(_ a: String, _ b: String) -> Bool { of(a) == of(b) }

    /// `text`'s skeleton and the spellings of it with one letter replaced by a look-alike of
    /// another script (`jdoe`: `jdоe` with a Cyrillic о, `jdοe` with a Greek ο, ...): what a
    /// directory search must also ask for to meet an account whose id looks like `text`. One
    /// letter at a time, so the list grows with the length rather than exponentially; at most
    /// `limit` spellings.
    public static func lookAlikeSpellings(of text: String, limit: Int = 64) -> [String] {
        let skeleton = Array(of(text).unicodeScalars)
        var spellings = [String(String.UnicodeScalarView(skeleton))]
        for (index, scalar) in skeleton.enumerated() {
            for other in otherScripts[scalar] ?? [] where spellings.count < limit {
                var spelled = skeleton
                spelled[index] = other
                spellings.append(String(String.UnicodeScalarView(spelled)))
            }
        }
        return spellings
    }

    /// Each Latin letter with its look-alikes (``latinLookAlikes`` turned round).
    private static let otherScripts: [Unicode.Scalar: [Unicode.Scalar]] = {
        var table: [Unicode.Scalar: [Unicode.Scalar]] = [:]
        for (other, latin) in latinLookAlikes.sorted(by: { $0.key.value < $1.key.value }) { table[latin, default: []].append(other) }
        return table
    }()

    /// Letters of other scripts that look like a Latin letter, each mapped to it (in TR39's
    /// `confusables.txt` these map to the same prototype). Decomposed letters are looked up one
    /// scalar at a time: `й` is `и` + U+0306 and keeps its mark.
    public static let latinLookAlikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [
            // Cyrillic
            ("а", "a"), ("е", "e"), ("о", "o"), ("р", "p"), ("с", "c"), ("у", "y"), ("х", "x"),
            ("і", "i"), ("ј", "j"), ("ѕ", "s"), ("ԁ", "d"), ("һ", "h"), ("ԛ", "q"), ("ԝ", "w"),
            ("ӏ", "l"),
            ("А", "A"), ("В", "B"), ("Е", "E"), ("К", "K"), ("М", "M"), ("Н", "H"), ("О", "O"),
            ("Р", "P"), ("С", "C"), ("Т", "T"), ("Х", "X"), ("У", "Y"), ("І", "I"), ("Ј", "J"),
            ("Ѕ", "S"), ("Ԁ", "D"), ("Ԛ", "Q"), ("Ԝ", "W"), ("Ӏ", "l"),
            // Greek
            ("α", "a"), ("ο", "o"), ("ρ", "p"), ("ν", "v"), ("ι", "i"), ("κ", "k"), ("τ", "t"),
            ("υ", "u"), ("χ", "x"), ("γ", "y"),
            ("Α", "A"), ("Β", "B"), ("Ε", "E"), ("Ζ", "Z"), ("Η", "H"), ("Ι", "I"), ("Κ", "K"),
            ("Μ", "M"), ("Ν", "N"), ("Ο", "O"), ("Ρ", "P"), ("Τ", "T"), ("Υ", "Y"), ("Χ", "X"),
            // Armenian
            ("ո", "n"), ("ս", "u"), ("օ", "o"),
            // Latin beyond ASCII (fullwidth letters, `ſ` and `ℓ` are folded by NFKC already)
            ("ı", "i"), ("ȷ", "j"), ("ɡ", "g"),
        ]
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (other, latin) in pairs { table[other.unicodeScalars.first!] = latin.unicodeScalars.first! }
        return table
    }()
}
