/// A shell-style glob on user ids and names: `*` any run of characters, `?` exactly one,
/// `\` makes the next character literal. Matching ignores case, as LDAP's `uid` and `cn`
/// matching rules do.
///
/// Pattern and text are read as Unicode scalars (a "character" is one scalar): read as
/// Characters, a `\` followed by a combining mark was one Character and escaped nothing (found
/// by the fuzzer). Names are in NFC, where a letter with its accent is one scalar.
public struct Glob: Sendable, Equatable {
    private enum Token: Equatable { case literal(Unicode.Scalar), any, one }
    private let tokens: [Token]
    public let pattern: String

    public init(_ pattern: String) {
        self.pattern = pattern
        var tokens: [Token] = []
        var escaping = false
        for ch in pattern.lowercased().unicodeScalars {
            if escaping { tokens.append(.literal(ch)); escaping = false; continue }
            switch ch {
            case "\\": escaping = true
            case "*": if tokens.last != .any { tokens.append(.any) }
            case "?": tokens.append(.one)
            default: tokens.append(.literal(ch))
            }
        }
        if escaping { tokens.append(.literal("\\")) }
        self.tokens = tokens
    }

    /// True when the glob has no wildcard at all (an exact value).
    public var isLiteral: Bool { !tokens.contains(.any) && !tokens.contains(.one) }

    public func matches(_ text: String) -> Bool {
        let chars = Array(text.lowercased().unicodeScalars)
        // Iterative wildcard matching with backtracking to the last `*` (linear in practice).
        var t = 0, c = 0
        var starToken = -1, starChar = 0
        while c < chars.count {
            if t < tokens.count {
                switch tokens[t] {
                case .any:
                    starToken = t; starChar = c; t += 1; continue
                case .one:
                    t += 1; c += 1; continue
                case .literal(let l) where l == chars[c]:
                    t += 1; c += 1; continue
                default: break
                }
            }
            guard starToken >= 0 else { return false }
            starChar += 1
            c = starChar
            t = starToken + 1
        }
        while t < tokens.count, tokens[t] == .any { t += 1 }
        return t == tokens.count
    }
}
