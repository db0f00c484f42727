import MICommands

/// RFC 4180 CSV: a header of column keys, then one line per row, written as rows arrive.
/// Lists are joined with ", "; control characters other than newlines are escaped.
///
/// Formula neutralisation (OWASP "CSV Injection"): a text cell that starts with `=`, `+`, `-`,
/// `@`, a tab or a carriage return would be run as a formula by Excel, LibreOffice and Google
/// Sheets (`=HYPERLINK(...)`, `@SUM(...)`, `-2+3`), so it is written behind a `'`, which
/// spreadsheets take as "this is text" and do not show. Numbers are written as they are (`-3` is
/// a number, not a formula). `--csv-raw` turns this off for programs that need the stored bytes.
final class CSVRenderer: RenderingSink {
    let neutraliseFormulas: Bool

    init(out: OutputStream, err: OutputStream, neutraliseFormulas: Bool = true) {
        self.neutraliseFormulas = neutraliseFormulas
        super.init(out: out, err: err)
    }

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
            out.write(field(cellText(value)))
        }
        out.write("\r\n")
    }

    override func endRows() {}

    override func message(_ text: String) {
        out.write("message\r\n" + field(cellText(.string(text))) + "\r\n")
    }

    /// The cell's text, behind a `'` when it is text a spreadsheet would run as a formula.
    private func cellText(_ value: Value) -> String {
        let text = text(value, forTable: false)
        switch value {
        case .string, .list, .object:
            guard neutraliseFormulas, let first = text.utf8.first, Self.formulaStarts.contains(first) else { return text }
            return "'" + text
        default:
            return text  // numbers, times, booleans: never a formula
        }
    }

    static let formulaStarts: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D]

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
