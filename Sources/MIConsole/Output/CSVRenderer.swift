import MICommands

/// RFC 4180 CSV: a header of column keys, then one line per row, written as rows arrive.
/// Lists are joined with ", "; control characters other than newlines are escaped.
///
/// Formula neutralisation (OWASP "CSV Injection"): a text cell that starts with `=`, `+`, `-`,
/// `@`, a tab or a carriage return would be run as a formula by Excel, LibreOffice and Google
/// Sheets (`=HYPERLINK(...)`, `@SUM(...)`, `-2+3`), so it is written behind a `'`, which
/// spreadsheets take as "this is text" and do not show. Numbers are written as they are (`-3` is
/// a number, not a formula). `--csv-raw` turns this off for programs that need the stored bytes.
///
/// A record that holds a list of objects (`show`'s questions) is written one line per object:
/// the record's other fields, then the object's fields (docs/review.md). Without it the whole
/// review would be one line with every answer flattened into one cell. An object's key that
/// names a record field too is written after the list's name (`questions.media` beside the
/// form's `media`), so every header names one column.
///
/// A run of several commands writes a header only when the columns change (``RunOutput``).
///
/// Rows are written straight into the output's byte buffer (`OutputStream.append`): a
/// million-row listing made about eight `String`s per row before (escaped text, quoted text,
/// two times built from a dozen pieces each), which was a third of its CPU time.
final class CSVRenderer: RenderingSink {
    var state: RenderingState
    let neutraliseFormulas: Bool

    init(out: OutputStream, err: OutputStream, neutraliseFormulas: Bool = true) {
        state = RenderingState(out: out, err: err)
        self.neutraliseFormulas = neutraliseFormulas
    }

    func record(_ columns: [Column], _ values: [Value]) {
        if let detail = values.firstIndex(where: { $0.objectList != nil }), let objects = values[detail].objectList {
            let keys = objects[0].map(\.key)
            let outer = columns.indices.filter { $0 != detail }
            let outerKeys = Set(outer.map { columns[$0].key })
            let innerColumns = keys.map { Column(outerKeys.contains($0) ? columns[detail].key + "." + $0 : $0) }
            beginRows(outer.map { columns[$0] } + innerColumns)
            for object in objects {
                let inner = keys.map { key in object.first { $0.key == key }?.value ?? .null }
                row(outer.map { values[$0] } + inner)
            }
            return
        }
        beginRows(columns)
        row(values)
    }

    func beginRows(_ columns: [Column]) {
        let (header, blankLine) = run.csvHeaderBefore(columns.map(\.key))
        guard header else { return }
        out.append { bytes in
            if blankLine { bytes.append(contentsOf: [13, 10]) }
            for (index, column) in columns.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.appendField(column.key, to: &bytes)
            }
            bytes.append(contentsOf: [13, 10])
        }
    }

    func row(_ values: [Value]) {
        out.append { bytes in
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                switch value {
                case .string(let text): Self.appendField(cell(text), to: &bytes)
                case .time(let date): times.appendISO8601(date, to: &bytes)  // digits, '-', ':', 'T', '+', 'Z' only
                case .null: break
                case .list, .object: Self.appendField(cell(text(value, forTable: false)), to: &bytes)
                default: Self.appendField(text(value, forTable: false), to: &bytes)  // numbers, booleans: never a formula
                }
            }
            bytes.append(contentsOf: [13, 10])
        }
    }

    func endRows() {}

    func message(_ text: String) {
        beginRows([Column("message")])
        out.append { bytes in
            Self.appendField(cell(text), to: &bytes)
            bytes.append(contentsOf: [13, 10])
        }
    }

    /// Text a spreadsheet would run as a formula, behind a `'` (unless `--csv-raw`).
    private func cell(_ text: String) -> String {
        guard neutraliseFormulas, let first = text.utf8.first, Self.startsFormula(first) else { return text }
        return "'" + text
    }

    /// `= + - @`, tab and CR: what a spreadsheet reads as the start of a formula. A switch, not
    /// a set: it is asked for every cell of a listing.
    static func startsFormula(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D: true
        default: false
        }
    }

    /// One field: terminal controls escaped (`TerminalText`), quoted when it holds `"`, `,`, CR
    /// or LF, quotes doubled. Plain ASCII — nearly every cell — is one scan of its bytes and one
    /// copy; only text with a control or a non-ASCII byte goes through `TerminalText.escape`.
    static func appendField(_ raw: String, to bytes: inout [UInt8]) {
        var scan = Scan(raw)
        var text = raw
        if scan.mayNeedEscape {
            text = TerminalText.escape(raw, keepNewlines: true)
            scan = Scan(text)
        }
        guard scan.needsQuotes else {
            bytes.append(contentsOf: text.utf8)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        if scan.hasQuote {
            for byte in text.utf8 {
                bytes.append(byte)
                if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            }
        } else {
            bytes.append(contentsOf: text.utf8)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// What one pass over a field's bytes finds.
    private struct Scan {
        var needsQuotes = false, hasQuote = false, mayNeedEscape = false

        init(_ text: String) {
            // A native string's bytes in one buffer: a plain loop over it, not the view's
            // iterator (every field of a listing passes here).
            if text.utf8.withContiguousStorageIfAvailable({ scan($0) }) == nil { scan(Array(text.utf8)) }
        }

        private mutating func scan<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): hasQuote = true; needsQuotes = true
                case UInt8(ascii: ","), 10: needsQuotes = true
                case 13: needsQuotes = true; mayNeedEscape = true
                case 0..<0x20, 0x7F...: mayNeedEscape = true
                default: break
                }
            }
        }
    }
}
