import MICommands

/// Sits between a command and the renderer: counts the rows the command returned (a record is
/// one row; `ROW_COUNT`), and for `\gset` keeps them instead of printing them, its messages
/// too (as psql's `\gset` prints nothing). Warnings, notes and progress pass through either way.
final class ResultTap: OutputSink {
    private let sink: any RenderingSink
    private let captures: Bool
    private(set) var rowCount = 0
    /// The columns and rows kept (`\gset`): at most two rows, enough to tell one from several.
    private(set) var columns: [Column] = []
    private(set) var rows: [[Value]] = []

    init(forwardingTo sink: any RenderingSink, captures: Bool) {
        self.sink = sink
        self.captures = captures
    }

    private func keep(_ values: [Value]) {
        rowCount += 1
        if captures && rows.count < 2 { rows.append(values) }
    }

    func record(_ columns: [Column], _ values: [Value]) {
        if captures { self.columns = columns } else { sink.record(columns, values) }
        keep(values)
    }

    func beginRows(_ columns: [Column]) {
        if captures { self.columns = columns } else { sink.beginRows(columns) }
    }

    func row(_ values: [Value]) {
        if !captures { sink.row(values) }
        keep(values)
    }

    func endRows() {
        if !captures { sink.endRows() }
    }

    func message(_ text: String) {
        if !captures { sink.message(text) }
    }
    func warning(_ text: String) { sink.warning(text) }
    func note(_ text: String) { sink.note(text) }
    func progress(_ label: String, done: Int, total: Int) { sink.progress(label, done: done, total: total) }

    /// `\gset`'s result needs exactly one row.
    struct NotOneRow: Error, CustomStringConvertible {
        let count: Int
        var description: String {
            "\\gset needs a result of exactly one row; the command returned \(count) row\(count == 1 ? "" : "s")"
        }
    }

    /// The one row kept, as variable names (`prefix` + the column's key, characters a name cannot
    /// hold as `_`) and their text as CSV writes it (times in ISO 8601, lists joined with ", ");
    /// nil for a NULL, which unsets the variable as psql's `\gset` does, so `:{?NAME}` tells a
    /// missing value from an empty one.
    func assignments(prefix: String) throws -> [(name: String, value: String?)] {
        guard rowCount == 1, let row = rows.first else { throw NotOneRow(count: rowCount) }
        return zip(columns, row).map { column, value in
            let key = String(String.UnicodeScalarView(column.key.unicodeScalars.map {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) ? $0 : "_"
            }))
            return (prefix + key, value == .null ? nil : sink.text(value, forTable: false))
        }
    }
}
