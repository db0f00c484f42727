/// Splits a command line into words with shell-like quoting, so form names with spaces can be
/// typed: `move 'jdoe/Pump station 4' asmith` or `move "jdoe/Pump station 4" asmith`.
///
/// - `'...'` is literal; `"..."` allows `\"` and `\\`; a backslash outside quotes makes the
///   next character literal; an unquoted `#` at the start of a word begins a comment.
/// Hand-written: no library here tokenizes shell words, and `wordexp(3)` would run expansions.
public enum Tokenizer {
    public struct UnterminatedQuote: Error, CustomStringConvertible {
        public let quote: Character
        public var description: String { "unterminated \(quote) quote" }
    }

    public static func split(_ line: String) throws -> [String] {
        try scan(line).words
    }

    /// The words, and whether the line ends inside an unfinished word (for completion: the
    /// last word is the one being typed).
    ///
    /// Scans Unicode scalars, not Characters: a combining mark after a quote, a space or a
    /// backslash (`'\u{301}`) would otherwise glue to it into one Character that is no longer the
    /// quote, and `quote` then `split` would lose a word (the tokenizer fuzz target checks it).
    static func scan(_ line: String) throws -> (words: [String], endsInWord: Bool) {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var inWord = false
        var iterator = line.unicodeScalars.makeIterator()
        func endWord() { words.append(String(current)); current = String.UnicodeScalarView(); inWord = false }
        while let ch = iterator.next() {
            switch ch {
            case " ", "\t", "\n", "\r":
                if inWord { endWord() }
            case "#" where !inWord:
                return (words, false)
            case "'":
                inWord = true
                var closed = false
                while let c = iterator.next() {
                    if c == "'" { closed = true; break }
                    current.append(c)
                }
                if !closed { throw UnterminatedQuote(quote: "'") }
            case "\"":
                inWord = true
                var closed = false
                while let c = iterator.next() {
                    if c == "\"" { closed = true; break }
                    if c == "\\", let next = iterator.next() {
                        if next != "\"" && next != "\\" { current.append("\\") }
                        current.append(next)
                    } else {
                        current.append(c)
                    }
                }
                if !closed { throw UnterminatedQuote(quote: "\"") }
            case "\\":
                inWord = true
                if let next = iterator.next() { current.append(next) }
            default:
                inWord = true
                current.append(ch)
            }
        }
        if inWord { words.append(String(current)) }
        return (words, inWord)
    }

    /// Quotes a word so `split` gives it back unchanged (for completion and history).
    public static func quote(_ word: String) -> String {
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_./@:+=,%".contains($0) }
        guard !plain else { return word }
        // By scalars, like `scan`: a `'` followed by a combining mark is still a quote to it.
        var quoted = String.UnicodeScalarView(["'"])
        for scalar in word.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: "'\\''".unicodeScalars) } else { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }
}
