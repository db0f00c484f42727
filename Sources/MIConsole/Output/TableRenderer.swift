import MICommands

/// Aligned columns for people. The first rows of a listing are buffered to size the columns;
/// past `sizingRows` the grid is drawn with those widths and later rows stream through, so a
/// huge listing still runs in bounded memory (a longer cell then pushes its line out of line).
/// Multi-line cells (a table answer's grid) take several lines; control characters are escaped.
final class TableRenderer: RenderingSink {
    var state: RenderingState

    init(out: OutputStream, err: OutputStream) {
        state = RenderingState(out: out, err: err)
    }

    private let sizingRows = 1_000
    private var columns: [Column] = []
    private var rows: [[[String]]] = []
    /// Set once the header is out and rows stream.
    private var streamingWidths: [Int]?
    private var rowCount = 0

    func record(_ columns: [Column], _ values: [Value]) {
        let width = columns.map { DisplayWidth.of($0.title) }.max() ?? 0
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
            if expanded { rowCount = 0 } else { writeGrid(footer: false) }
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

    func beginRows(_ columns: [Column]) {
        self.columns = columns
        rows = []
        streamingWidths = nil
        rowCount = 0
    }

    func row(_ values: [Value]) {
        rowCount += 1
        if expanded {
            writeBlock(values)
            return
        }
        let cells = values.map(cellLines)
        if let widths = streamingWidths {
            writeLine(cells, widths)
            return
        }
        rows.append(cells)
        if rows.count >= sizingRows { streamingWidths = writeHeaderAndBuffered() }
    }

    func endRows() {
        if expanded {
            out.write(rowCount == 0 ? "(0 rows)\n" : "(\(rowCount) row\(rowCount == 1 ? "" : "s"))\n")
            rowCount = 0
            return
        }
        writeGrid(footer: true)
    }

    /// Expanded display (psql's `\x`): one block per row, a `column | value` line per column, so
    /// a wide row reads top to bottom instead of wrapping.
    private func writeBlock(_ values: [Value]) {
        let width = columns.map { DisplayWidth.of($0.title) }.max() ?? 0
        let label = "-[ RECORD \(rowCount) ]"
        out.write(label + String(repeating: "-", count: max(0, width + 3 - DisplayWidth.of(label))) + "\n")
        for (column, value) in zip(columns, values) {
            let lines = cellLines(value)
            out.write(pad(column.title, width) + " | " + (lines.first ?? "") + "\n")
            for line in lines.dropFirst() { out.write(String(repeating: " ", count: width) + " | " + line + "\n") }
        }
    }

    private func writeGrid(footer: Bool) {
        if streamingWidths == nil { _ = writeHeaderAndBuffered() }
        if footer { out.write("(\(rowCount) row\(rowCount == 1 ? "" : "s"))\n") }
        rows = []
        streamingWidths = nil
        rowCount = 0
    }

    /// Sizes the columns from the buffered rows, writes header and rows; returns the widths.
    private func writeHeaderAndBuffered() -> [Int] {
        var widths = columns.map { DisplayWidth.of($0.title) }
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.map(DisplayWidth.of).max() ?? 0)
            }
        }
        writeLine(columns.map { [$0.title] }, widths)
        out.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-") + "\n")
        for row in rows { writeLine(row, widths) }
        rows = []
        return widths
    }

    func message(_ text: String) {
        out.write(TerminalText.escape(text, keepNewlines: true) + "\n")
    }

    private func cellLines(_ value: Value) -> [String] {
        if case .grid(let table) = value {
            return AnswerGrid.lines(table).map { TerminalText.escape($0, keepNewlines: false) }
        }
        return TerminalText.escape(text(value, forTable: true), keepNewlines: true).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
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

    private func pad(_ text: String, _ width: Int) -> String { DisplayWidth.pad(text, to: width) }
}
