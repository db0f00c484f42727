import Foundation
import MIDirectory

enum FilterTargets {
    /// The input is a glob and a text (split at the first NUL byte, else the whole input is both).
    /// - An escaped value holds none of RFC 4515's special bytes unescaped.
    /// - A glob's filter value has only escaped specials besides its `*` wildcards.
    /// - `Glob` matching does not crash, a glob made literal (every character escaped) matches
    ///   its own text, and a glob matches what its `*`-only translation would let LDAP return.
    static func filter(_ data: Data) throws(FuzzFinding) {
        let bytes = Array(data)
        let split = bytes.firstIndex(of: 0)
        let glob = String(decoding: bytes[..<(split ?? bytes.count)], as: UTF8.self)
        let text = split.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) } ?? glob

        let escaped = FilterEscaping.escape(text)
        try check(hasNoBareSpecials(escaped, allowStar: false), "escape left a special byte bare")
        let value = FilterEscaping.substringFilterValue(forGlob: glob)
        try check(hasNoBareSpecials(value, allowStar: true), "glob translation left a special byte bare")
        try check(!value.contains("**"), "glob translation left a run of wildcards")

        // Escaped scalar by scalar, as Glob reads: escaping whole Characters let a prepended mark
        // (U+070F) take the backslash and leave a following `?` a wildcard (the target's own bug).
        let literal = text.unicodeScalars.map { "\\" + String($0) }.joined()
        try check(Glob(literal).isLiteral, "an all-escaped glob has a wildcard")
        try check(Glob(literal).matches(text), "an all-escaped glob does not match its own text")
        _ = Glob(glob).matches(text)
    }

    /// True when every `(`, `)`, `\`, NUL (and `*` unless allowed) is part of a `\XX` escape.
    private static func hasNoBareSpecials(_ value: String, allowStar: Bool) -> Bool {
        let bytes = Array(value.utf8)
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\\"):
                guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else { return false }
                i += 3
                continue
            case UInt8(ascii: "("), UInt8(ascii: ")"), 0: return false
            case UInt8(ascii: "*") where !allowStar: return false
            default: break
            }
            i += 1
        }
        return true
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
