import MICommands

/// Aligned columns for people. The first rows of a listing are buffered to size the columns;
/// past `sizingRows` the grid is drawn with those widths and later rows stream through, so a
/// huge listing still runs in bounded memory (a longer cell then pushes its line out of line).
/// Multi-line cells (a table answer's grid) take several lines; control characters are escaped.
/// With `expanded auto` at a terminal, a listing whose grid (sized on those first rows) is wider
/// than the screen is drawn as blocks instead, as psql's `\x auto` does. The grid leaves out
/// detail columns (``Column/detail``) unless `--wide`; blocks show every column. At a terminal a
/// grid wider than the screen first leaves out and cuts what its columns allow (``GridFit``),
/// and says what it left out; only a grid that still does not fit becomes blocks.
final class TableRenderer: RenderingSink {
    var state: RenderingState

    init(out: OutputStream, err: OutputStream) {
        state = RenderingState(out: out, err: err)
    }

    private let sizingRows = 1_000
    private var columns: [Column] = []
    /// The indexes of the columns the grid shows.
    private var shown: [Int] = []
    /// The grid was fitted to the screen (``GridFit``): a cell of a `cut` column wider than the
    /// column is cut.
    private var cutsCells = false
    /// The titles of the columns the grid left out to fit the screen, said after the rows.
    private var leftOut: [String] = []
    private var rows: [[[String]]] = []
    /// Set once the header is out and rows stream.
    private var streamingWidths: [Int]?
    /// This listing is drawn as blocks (`expanded on`, or `auto` and its grid too wide).
    private var blocks = false
    private var rowCount = 0

    func record(_ columns: [Column], _ values: [Value]) {
        let titleWidths = columns.map { DisplayWidth.of($0.title) }
        let width = titleWidths.max() ?? 0
        var nested: [(Column, [[Value.Field]])] = []
        for (index, (column, value)) in zip(columns, values).enumerated() {
            // A list of objects (a form's questions) is drawn as its own table below.
            if let objects = value.objectList {
                nested.append((column, objects))
                continue
            }
            // Each line's bytes straight into the output, the title padded to `width`: a move
            // script prints one such record per line, and joined Strings were most of its cost.
            let lines = cellLines(value)
            out.append { bytes in
                bytes += column.title.utf8
                bytes += repeatElement(UInt8(ascii: " "), count: width - titleWidths[index] + 2)
                bytes += (lines.first ?? "").utf8
                bytes.append(UInt8(ascii: "\n"))
            }
            for line in lines.dropFirst() {
                out.append { bytes in
                    bytes += repeatElement(UInt8(ascii: " "), count: width + 2)
                    bytes += line.utf8
                    bytes.append(UInt8(ascii: "\n"))
                }
            }
        }
        for (column, objects) in nested {
            out.write("\n" + column.title + ":\n")
            // A column empty in every row (no question has media, help or violations) only
            // widened the grid until it wrapped (`show`): left out, and named below the table.
            let keys = objects[0].map(\.key)
            let empty = Set(keys.filter { key in objects.allSatisfy { Self.isEmpty($0.first { $0.key == key }?.value ?? .null) } })
            let shown = keys.filter { !empty.contains($0) }
            beginRows(shown.map { Column($0) })
            for object in objects { row(shown.map { key in object.first { $0.key == key }?.value ?? .null }) }
            endListing(footer: false)
            if !empty.isEmpty {
                out.write("(empty in every row, left out: " + keys.filter(empty.contains).joined(separator: ", ") + ")\n")
            }
        }
    }

    /// A value a table cell shows as nothing.
    static func isEmpty(_ value: Value) -> Bool {
        switch value {
        case .null: true
        case .string(let text): text.isEmpty
        case .list(let items): items.isEmpty
        case .object(let fields): fields.isEmpty
        default: false
        }
    }

    func beginRows(_ columns: [Column]) {
        self.columns = columns
        shown = columns.indices.filter { state.wide || !columns[$0].detail }
        rows = []
        streamingWidths = nil
        rowCount = 0
        blocks = expanded == .on
        cutsCells = false
        leftOut = []
    }

    func row(_ values: [Value]) {
        rowCount += 1
        let cells = values.map(cellLines)
        if blocks {
            writeBlock(cells, number: rowCount)
            return
        }
        if let widths = streamingWidths {
            writeLine(cells, widths)
            return
        }
        rows.append(cells)
        if rows.count >= sizingRows { writeBuffered() }
    }

    func endRows() {
        endListing(footer: true)
    }

    private func endListing(footer: Bool) {
        if !blocks && streamingWidths == nil { writeBuffered() }
        if !leftOut.isEmpty && !state.quiet {
            out.write("(left out to fit the screen: " + leftOut.joined(separator: ", ") + "; --wide shows every column)\n")
        }
        if footer && !state.quiet { out.write("(\(rowCount) row\(rowCount == 1 ? "" : "s"))\n") }
        rows = []
        streamingWidths = nil
        rowCount = 0
        blocks = false
        cutsCells = false
        leftOut = []
    }

    /// Expanded display (psql's `\x`): one block per row, a `column | value` line per column, so
    /// a wide row reads top to bottom instead of wrapping.
    private func writeBlock(_ cells: [[String]], number: Int) {
        let width = columns.map { DisplayWidth.of($0.title) }.max() ?? 0
        let label = "-[ RECORD \(number) ]"
        out.write(label + String(repeating: "-", count: max(0, width + 3 - DisplayWidth.of(label))) + "\n")
        for (column, lines) in zip(columns, cells) {
            out.write(pad(column.title, width) + " | " + (lines.first ?? "") + "\n")
            for line in lines.dropFirst() { out.write(String(repeating: " ", count: width) + " | " + line + "\n") }
        }
    }

    /// Sizes the columns from the buffered rows and writes them: as a grid whose widths later
    /// rows stream with (at a terminal, fitted to it as its columns allow), or (`expanded auto`,
    /// the grid wider than the terminal even so) as blocks, as are the rows after them.
    private func writeBuffered() {
        let titles = shown.map { DisplayWidth.of(columns[$0].title) }
        var widths = titles
        for row in rows {
            for (i, column) in shown.enumerated() where column < row.count {
                widths[i] = max(widths[i], row[column].map(DisplayWidth.of).max() ?? 0)
            }
        }
        if let screen = state.screenColumns, GridFit.width(widths) > screen {
            // `--wide`: every column whole, so a grid or blocks.
            let fit = state.wide ? nil
                : GridFit.fitting(natural: widths, titles: titles, fits: shown.map { columns[$0].fit }, screen: screen)
            if let fit {
                leftOut = shown.indices.filter { !fit.shown.contains($0) }.map { columns[shown[$0]].title }
                shown = fit.shown.map { shown[$0] }
                widths = fit.widths
                cutsCells = true
            } else if expanded == .auto {
                blocks = true
                for (index, row) in rows.enumerated() { writeBlock(row, number: index + 1) }
                rows = []
                return
            }
        }
        writeLine(columns.map { [$0.title] }, widths)
        out.write(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-") + "\n")
        for row in rows { writeLine(row, widths) }
        rows = []
        streamingWidths = widths
    }

    func message(_ text: String) {
        out.write(TerminalText.escape(text, keepNewlines: true) + "\n")
    }

    private func cellLines(_ value: Value) -> [String] {
        if case .grid(let table) = value {
            return AnswerGrid.lines(table).map { TerminalText.escape($0, keepNewlines: false) }
        }
        let text = TerminalText.escape(text(value, forTable: true), keepNewlines: true)
        // Almost every cell is one line: a byte scan instead of splitting it Character by Character.
        guard text.utf8.contains(UInt8(ascii: "\n")) else { return [text] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// One row of the grid: the cells of the shown columns, each padded to its width.
    private func writeLine(_ cells: [[String]], _ widths: [Int]) {
        let cells = shown.map { $0 < cells.count ? cells[$0] : [] }
        let height = cells.map(\.count).max() ?? 1
        for lineIndex in 0..<height {
            var parts: [String] = []
            for (i, width) in widths.enumerated() {
                let cell = i < cells.count ? cells[i] : []
                let text = lineIndex < cell.count ? cell[lineIndex] : ""
                let cuts = cutsCells && i < shown.count && columns[shown[i]].fit == .cut
                parts.append(pad(cuts ? GridFit.cut(text, to: width) : text, width))
            }
            var line = parts.joined(separator: " | ")
            while line.hasSuffix(" ") { line.removeLast() }
            out.write(line + "\n")
        }
    }

    private func pad(_ text: String, _ width: Int) -> String { DisplayWidth.pad(text, to: width) }
}
