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
        out.write(values.map { field($0.text) }.joined(separator: ",") + "\r\n")
    }

    override func endRows() {}

    override func message(_ text: String) {
        out.write("message\r\n" + field(text) + "\r\n")
    }

    private func field(_ raw: String) -> String {
        let text = TerminalText.escape(raw, keepNewlines: true)
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
