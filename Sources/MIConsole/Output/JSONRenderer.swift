import MICommands

/// One JSON value per command on stdout: an object for a record, an array for a listing
/// (written element by element as rows arrive), `{"message": ...}` for a message.
///
/// The string escaper is hand-written because `JSONEncoder` encodes whole values; a streamed
/// listing needs to write each element as it comes.
final class JSONRenderer: RenderingSink {
    private var columns: [Column] = []
    private var first = true

    override func record(_ columns: [Column], _ values: [Value]) {
        guard unsaved else {
            out.write(object(columns, values) + "\n")
            return
        }
        out.write(object(columns + [Column("saved")], values + [.bool(false)]) + "\n")
    }

    override func beginRows(_ columns: [Column]) {
        self.columns = columns
        first = true
        out.write("[")
    }

    override func row(_ values: [Value]) {
        out.write(first ? "\n" : ",\n")
        first = false
        out.write(object(columns, values))
    }

    override func endRows() {
        out.write(first ? "]\n" : "\n]\n")
    }

    override func message(_ text: String) {
        out.write("{\"message\":" + JSONRenderer.string(text) + "}\n")
    }

    override func closing(saved: Bool, _ text: String) {
        out.write("{\"saved\":\(saved),\"message\":" + JSONRenderer.string(text) + "}\n")
        finish()
    }

    private func object(_ columns: [Column], _ values: [Value]) -> String {
        var parts: [String] = []
        for (column, value) in zip(columns, values) {
            parts.append(JSONRenderer.string(column.key) + ":" + JSONRenderer.value(value, times: times))
        }
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func value(_ value: Value, times: TimeText) -> String {
        switch value {
        case .string(let s): return string(s)
        case .time(let date): return string(times.iso8601(date))
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? value.text : "null"
        case .bool(let b): return b ? "true" : "false"
        case .list(let items): return "[" + items.map { self.value($0, times: times) }.joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { string($0.key) + ":" + self.value($0.value, times: times) }.joined(separator: ",") + "}"
        case .null: return "null"
        }
    }

    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
