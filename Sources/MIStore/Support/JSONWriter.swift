/// Writes a ``JSONValue`` as pretty-printed UTF-8 JSON (two-space indent, like the field app).
public enum JSONWriter {
    public static func write(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        out.append("\n")
        return out
    }

    /// Writes `value` compactly on one line (for audit rows and the questions column).
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: nil, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: Int?, into out: inout String) {
        switch value {
        case .null: out.append("null")
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .number(let literal): out.append(literal)
        case .string(let text): writeString(text, into: &out)
        case .array(let elements):
            if elements.isEmpty { out.append("[]"); return }
            out.append("[")
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(",") }
                newline(indent.map { $0 + 1 }, into: &out)
                write(element, indent: indent.map { $0 + 1 }, into: &out)
            }
            newline(indent, into: &out)
            out.append("]")
        case .object(let object):
            if object.isEmpty { out.append("{}"); return }
            out.append("{")
            for (position, entry) in object.entries.enumerated() {
                if position > 0 { out.append(",") }
                newline(indent.map { $0 + 1 }, into: &out)
                writeString(entry.key, into: &out)
                out.append(indent == nil ? ":" : ": ")
                write(entry.value, indent: indent.map { $0 + 1 }, into: &out)
            }
            newline(indent, into: &out)
            out.append("}")
        }
    }

    private static func newline(_ indent: Int?, into out: inout String) {
        guard let indent else { return }
        out.append("\n")
        out.append(String(repeating: "  ", count: indent))
    }

    private static func writeString(_ text: String, into out: inout String) {
        out.append("\"")
        // Most strings (keys, uids, form names, states) need no escape: one byte scan, one append.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            out.append(text)
            out.append("\"")
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }
}
