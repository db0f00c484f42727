import MICommands

/// RFC 4180 CSV: a header of column keys, then one line per row, written as rows arrive.
/// Lists are joined with ", "; control characters other than newlines are escaped.
///
/// A record that holds a list of objects (`show`'s questions) is written one line per object:
/// the record's other fields, then the object's fields (docs/review.md). Without it the whole
/// review would be one line with every answer flattened into one cell.
final class CSVRenderer: RenderingSink {
    override func record(_ columns: [Column], _ values: [Value]) {
        if let detail = values.firstIndex(where: { Self.objects($0) != nil }), let objects = Self.objects(values[detail]) {
            let keys = objects[0].map(\.key)
            let outer = columns.indices.filter { $0 != detail }
            beginRows(outer.map { columns[$0] } + keys.map { Column($0) })
            for object in objects {
                let inner = keys.map { key in object.first { $0.key == key }?.value ?? .null }
                row(outer.map { values[$0] } + inner)
            }
            return
        }
        beginRows(columns)
        row(values)
    }

    /// The fields of each element of a non-empty list of objects; nil for any other value.
    private static func objects(_ value: Value) -> [[Value.Field]]? {
        guard case .list(let items) = value, !items.isEmpty else { return nil }
        var result: [[Value.Field]] = []
        for item in items {
            guard case .object(let fields) = item else { return nil }
            result.append(fields)
        }
        return result
    }

    override func beginRows(_ columns: [Column]) {
        out.write(columns.map { field($0.key) }.joined(separator: ",") + "\r\n")
    }

    override func row(_ values: [Value]) {
        var first = true
        for value in values {
            if !first { out.write(",") }
            first = false
            out.write(field(text(value, forTable: false)))
        }
        out.write("\r\n")
    }

    override func endRows() {}

    override func message(_ text: String) {
        out.write("message\r\n" + field(text) + "\r\n")
    }

    private func field(_ raw: String) -> String {
        let text = TerminalText.escape(raw, keepNewlines: true)
        var needsQuotes = false, hasQuote = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): hasQuote = true; needsQuotes = true
            case UInt8(ascii: ","), 10, 13: needsQuotes = true
            default: continue
            }
        }
        guard needsQuotes else { return text }
        // Doubling quotes only when there is one: Foundation's replacingOccurrences was most of
        // a million-row listing's time.
        return "\"" + (hasQuote ? text.replacingOccurrences(of: "\"", with: "\"\"") : text) + "\""
    }
}
