import MICommands

/// Aligned columns for people. Buffers a listing to size the columns (a terminal user does not
/// page a million rows; use `--format csv` for that). Multi-line cells (a table answer's grid)
/// take several lines; control characters are escaped.
final class TableRenderer: RenderingSink {
    private var columns: [Column] = []
    private var rows: [[[String]]] = []

    override func record(_ columns: [Column], _ values: [Value]) {
        let width = columns.map { $0.title.count }.max() ?? 0
        var nested: [(Column, [[Value.Field]])] = []
        for (column, value) in zip(columns, values) {
            // A list of objects (a form's questions) is drawn as its own table below.
            if case .list(let items) = value, !items.isEmpty, let objects = Self.objects(items) {
                nested.append((column, objects))
                continue
            }
            let lines = cellLines(value)
            out.write(pad(column.title, width) + "  " + (lines.first ?? "") + "\n")
            for line in lines.dropFirst() { out.write(String(repeating: " ", count: width + 2) + line + "\n") }
        }
        for (column, objects) in nested {
            out.write("\n" + column.title + ":\n")
            beginRows(objects[0].map { Column($0.key) })
            for object in objects { row(object.map(\.value)) }
            writeGrid(footer: false)
        }
    }

    private static func objects(_ items: [Value]) -> [[Value.Field]]? {
        var result: [[Value.Field]] = []
        for item in items {
            guard case .object(let fields) = item else { return nil }
            result.append(fields)
        }
        return result
    }

    override func beginRows(_ columns: [Column]) {
        self.columns = columns
        rows = []
    }

    override func row(_ values: [Value]) {
        rows.append(values.map(cellLines))
    }

    override func endRows() { writeGrid(footer: true) }

    private func writeGrid(footer: Bool) {
        var widths = columns.map { $0.title.count }
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.map(\.count).max() ?? 0)
            }
        }
        writeLine(columns.map { [$0.title] }, widths)
        out.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-") + "\n")
        for row in rows { writeLine(row, widths) }
        if footer { out.write("(\(rows.count) row\(rows.count == 1 ? "" : "s"))\n") }
        rows = []
    }

    override func message(_ text: String) {
        out.write(TerminalText.escape(text, keepNewlines: true) + "\n")
    }

    private func cellLines(_ value: Value) -> [String] {
        TerminalText.escape(value.text, keepNewlines: true).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func writeLine(_ cells: [[String]], _ widths: [Int]) {
        let height = cells.map(\.count).max() ?? 1
        for lineIndex in 0..<height {
            var parts: [String] = []
            for (i, width) in widths.enumerated() {
                let cell = i < cells.count ? cells[i] : []
                parts.append(pad(lineIndex < cell.count ? cell[lineIndex] : "", width))
            }
            var line = parts.joined(separator: " | ")
            while line.hasSuffix(" ") { line.removeLast() }
            out.write(line + "\n")
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        let count = text.count
        return count >= width ? text : text + String(repeating: " ", count: width - count)
    }
}
