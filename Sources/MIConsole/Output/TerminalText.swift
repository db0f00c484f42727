/// Escapes control characters in text that came from outside (the directory, the store), so a
/// value cannot move the cursor, change colours or retitle the terminal when printed.
/// `ESC` becomes `\x1b`, C1 controls `\u{9b}`; newlines are kept only where the caller lays
/// out multi-line cells itself.
enum TerminalText {
    static func escape(_ text: String, keepNewlines: Bool) -> String {
        guard mayNeedEscape(text, keepNewlines: keepNewlines),
              text.unicodeScalars.contains(where: { needsEscape($0, keepNewlines: keepNewlines) }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepNewlines: keepNewlines) {
                out += scalar.value < 0x80 ? "\\x" + hex2(scalar.value) : "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A byte-level first look (every value of every listing passes here): C0 controls and DEL
    /// are single bytes; C1 controls (U+0080–U+009F) are encoded as 0xC2 0x80…0x9F.
    private static func mayNeedEscape(_ text: String, keepNewlines: Bool) -> Bool {
        var afterC2 = false
        for byte in text.utf8 {
            if byte < 0x20 && !(keepNewlines && byte == 0x0A) { return true }
            if byte == 0x7F || (afterC2 && byte <= 0x9F) { return true }
            afterC2 = byte == 0xC2
        }
        return false
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepNewlines: Bool) -> Bool {
        let v = scalar.value
        if v == 0x0A { return !keepNewlines }
        return v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v)
    }

    private static func hex2(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return s.count == 1 ? "0" + s : s
    }
}
