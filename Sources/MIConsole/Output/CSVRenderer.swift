import MICommands

/// RFC 4180 CSV: a header of column keys, then one line per row, written as rows arrive.
/// Lists are joined with ", "; control characters other than newlines are escaped.
final class CSVRenderer: RenderingSink {
    override func record(_ columns: [Column], _ values: [Value]) {
        beginRows(columns)
        row(values)
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
