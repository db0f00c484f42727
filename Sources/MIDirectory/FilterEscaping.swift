/// RFC 4515 escaping of values placed in LDAP search filters.
///
/// Hand-written rather than calling libldap's `ldap_bv2escaped_filter_value` because the glob
/// translation below needs to escape the pieces *between* wildcards, and a pure function can be
/// tested without a connection. The escaped set is exactly RFC 4515's: `*`, `(`, `)`, `\`, NUL,
/// plus every non-ASCII byte is left as UTF-8 (allowed by the RFC).
public enum FilterEscaping {
    /// Escapes a whole value so that it matches only itself (no wildcards survive).
    public static func escape(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "*"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"), 0:
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(contentsOf: hex(byte))
            default:
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]
    }

    /// Turns a user's glob (`*` any run, `?` any one character, `\` escapes the next character)
    /// into the value part of an LDAP substring filter. `?` has no LDAP equivalent, so it becomes
    /// `*` and the caller must re-check candidates with `Glob.matches`.
    public static func substringFilterValue(forGlob glob: String) -> String {
        // By Unicode scalars, as Glob reads it: a `\` followed by a combining mark still escapes.
        var pieces: [String] = []
        var current = String.UnicodeScalarView()
        var escaping = false
        for ch in glob.unicodeScalars {
            if escaping {
                current.append(ch)
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else if ch == "*" || ch == "?" {
                pieces.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(ch)
            }
        }
        if escaping { current.append("\\") }
        pieces.append(String(current))
        // Collapse runs of wildcards: "a**b" is "a*b". Tracked as a flag, not `hasSuffix("*")`:
        // that compares Characters, and a piece ending in a Prepend scalar (U+0600) fuses with the
        // `*` after it into one Character, so a second `*` slipped in (a fuzz finding).
        var result = escape(pieces[0])
        var endsWithWildcard = false
        for piece in pieces.dropFirst() {
            if !endsWithWildcard { result += "*" }
            let escapedPiece = escape(piece)
            result += escapedPiece
            endsWithWildcard = escapedPiece.isEmpty
        }
        return result
    }
}
