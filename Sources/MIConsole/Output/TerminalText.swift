/// The one escaping rule for text that came from outside — the directory (display names, uids),
/// the store (form names, comments, notices, answers) or a file — before it reaches a terminal,
/// a message, a table, a CSV cell, the banner or the prompt.
///
/// Escaped, so a value can neither drive the terminal nor disguise itself:
/// - C0 controls (ESC, BEL, CR, TAB, ...), DEL and C1 controls (U+0080–U+009F): they move the
///   cursor, change colours, retitle the window;
/// - newlines (U+000A) and the Unicode line and paragraph separators (U+2028, U+2029), unless
///   the caller lays out multi-line cells itself (`keepNewlines`): otherwise a name could fake a
///   line of output;
/// - format characters (general category Cf): the bidirectional embeddings, overrides and
///   isolates U+202A–U+202E and U+2066–U+2069 (which make text read in another order than it is
///   stored, "Trojan Source"), the marks U+200E/U+200F/U+061C, zero-width spaces, U+FEFF, soft
///   hyphens, invisible operators. Kept: ZERO WIDTH (NON-)JOINER U+200C/U+200D, which scripts such
///   as Persian and emoji sequences need and which can neither move text nor hide a character.
///
/// An escaped character is shown as `\xHH` (below U+0080) or `\u{HHHH}`, visible and unambiguous.
/// Escaping is idempotent: escaping an escaped text changes nothing.
public enum TerminalText {
    public static func escape(_ text: String, keepNewlines: Bool) -> String {
        guard mayNeedEscape(text, keepNewlines: keepNewlines),
              text.unicodeScalars.contains(where: { needsEscape($0, keepNewlines: keepNewlines) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepNewlines: keepNewlines) {
                out += scalar.value < 0x80 ? "\\x" + hex(scalar.value, width: 2) : "\\u{" + hex(scalar.value, width: 4) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// True for a character the rule escapes (a newline counts; callers keeping newlines skip it).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) { return true }
        if v < 0xA0 { return false }
        if v == 0x2028 || v == 0x2029 { return true }
        if v == 0x200C || v == 0x200D { return false }
        return scalar.properties.generalCategory == .format
    }

    /// A byte-level first look (every value of every listing passes here): plain ASCII without
    /// controls needs nothing; anything else is checked character by character.
    private static func mayNeedEscape(_ text: String, keepNewlines: Bool) -> Bool {
        for byte in text.utf8 {
            if byte < 0x20 && !(keepNewlines && byte == 0x0A) { return true }
            if byte >= 0x7F { return true }
        }
        return false
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepNewlines: Bool) -> Bool {
        if scalar.value == 0x0A { return !keepNewlines }
        return isUnsafe(scalar)
    }

    private static func hex(_ v: UInt32, width: Int) -> String {
        let s = String(v, radix: 16)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
