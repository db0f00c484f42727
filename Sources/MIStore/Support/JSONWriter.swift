/// Writes a ``JSONValue`` as pretty-printed UTF-8 JSON (two-space indent, like the field app).
///
/// The text is written as bytes into one buffer and becomes a String once: every move writes
/// two audit documents, and a String appended to piece by piece (a quote, a key, a colon)
/// checks and grows itself at each piece (docs/benchmarks.md, "Moves on SQLite").
public enum JSONWriter {
    public static func write(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, indent: 0, into: &out)
        out.append(UInt8(ascii: "\n"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes `value` compactly on one line (for audit rows and the questions column).
    public static func compact(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, indent: nil, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, indent: Int?, into out: inout [UInt8]) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .number(let literal): out += literal.utf8
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]".utf8; return }
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent.map { $0 + 1 }, into: &out)
                write(element, indent: indent.map { $0 + 1 }, into: &out)
            }
            newline(indent, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty { out += "{}".utf8; return }
            out.append(UInt8(ascii: "{"))
            for (position, entry) in object.entries.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent.map { $0 + 1 }, into: &out)
                writeString(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(entry.value, indent: indent.map { $0 + 1 }, into: &out)
            }
            newline(indent, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ indent: Int?, into out: inout [UInt8]) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// Whether a byte of UTF-8 must be escaped in a JSON string: a control character, `"` or `\`
    /// (every byte of a multi-byte character is 0x80 or above, so none of them is).
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (keys, uids, form names, states) need no escape: one scan of the
        // string's own bytes, one copy.
        var text = text
        let copied = text.withUTF8 { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if !copied {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out += #"\""#.utf8
                case UInt8(ascii: "\\"): out += #"\\"#.utf8
                case UInt8(ascii: "\n"): out += #"\n"#.utf8
                case UInt8(ascii: "\r"): out += #"\r"#.utf8
                case UInt8(ascii: "\t"): out += #"\t"#.utf8
                case 0x08: out += #"\b"#.utf8
                case 0x0C: out += #"\f"#.utf8
                case _ where byte < 0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out += #"\u00"#.utf8
                    out.append(hex[Int(byte >> 4)])
                    out.append(hex[Int(byte & 0xF)])
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
