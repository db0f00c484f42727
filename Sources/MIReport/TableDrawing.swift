import CPangoCairo
import MIStore

/// A table answer drawn as a real table: row headers on the left, column headers on top, grey
/// hatched-free "×" cells where `noCells` says a cell must stay empty (red when filled anyway).
///
/// Wide tables are cut into bands of at most ``columnsPerBand`` columns, each with the row
/// headers again; a band continues on the next page row by row, repeating its header row.
struct TableDrawing {
    static let columnsPerBand = 8
    static let padding = 2.5
    /// A cell shows at most this many lines, then an ellipsis: one cell never outgrows a page.
    static let maxCellLines = 12

    let canvas: PDFCanvas
    let table: ReviewTable

    func draw(indent: Double) {
        guard !table.columns.isEmpty, !table.rows.isEmpty else {
            canvas.paragraph("(a table without rows or columns)", style: .smallItalic, indent: indent, color: (0.4, 0.4, 0.4))
            return
        }
        let noCells = Set(table.noCells)
        let bands = stride(from: 0, to: table.columns.count, by: Self.columnsPerBand).map {
            $0..<min($0 + Self.columnsPerBand, table.columns.count)
        }
        let totalWidth = canvas.width - indent
        let headerWidth = min(totalWidth * 0.25, 110)
        for band in bands {
            if bands.count > 1 {
                canvas.paragraph("Columns \(band.lowerBound + 1)–\(band.upperBound) of \(table.columns.count)",
                                 style: .small, indent: indent, color: (0.4, 0.4, 0.4), after: 1)
            }
            let cellWidth = (totalWidth - headerWidth) / Double(band.count)
            let widths = [headerWidth] + Array(repeating: cellWidth, count: band.count)
            let header = [""] + band.map { table.columns[$0] }
            canvas.ensure(rowHeight(header, widths, style: .cellBold) + rowHeight([table.rows[0]], [headerWidth], style: .cellBold))
            drawRow(header, widths, indent: indent, style: .cellBold, background: { _ in (0.9, 0.9, 0.9) }, color: { _ in (0, 0, 0) })
            for (row, rowHeader) in table.rows.enumerated() {
                let texts = [rowHeader] + band.map { column -> String in
                    let value = table.cells[row][column] ?? ""
                    guard noCells.contains(TableCell(row: row, column: column)) else { return value }
                    return value.isEmpty ? "×" : "× \(value)"
                }
                let height = rowHeight(texts, widths, style: .cell)
                if height > canvas.space {
                    canvas.newPage()
                    drawRow(header, widths, indent: indent, style: .cellBold, background: { _ in (0.9, 0.9, 0.9) },
                            color: { _ in (0, 0, 0) })
                }
                func isNoCell(_ i: Int) -> Bool { i > 0 && noCells.contains(TableCell(row: row, column: band.lowerBound + i - 1)) }
                drawRow(texts, widths, indent: indent, style: .cell,
                        background: { i in i == 0 ? (0.95, 0.95, 0.95) : isNoCell(i) ? (0.82, 0.82, 0.82) : nil },
                        color: { i in isNoCell(i) && texts[i] != "×" ? (0.7, 0, 0) : (0, 0, 0) })
            }
            canvas.y += 5
        }
    }

    private func rowHeight(_ texts: [String], _ widths: [Double], style: TextStyle) -> Double {
        var height = 0.0
        for (text, width) in zip(texts, widths) {
            let layout = TextLayout(canvas, text, style: style, width: width - 2 * Self.padding, maxLines: Self.maxCellLines)
            height = max(height, layout.size.height)
        }
        return height + 2 * Self.padding
    }

    private func drawRow(_ texts: [String], _ widths: [Double], indent: Double, style: TextStyle,
                         background: (Int) -> RGB?, color: (Int) -> RGB) {
        let height = rowHeight(texts, widths, style: style)
        if canvas.drawing {
            var x = canvas.left + indent
            for (i, (text, width)) in zip(texts, widths).enumerated() {
                if let fill = background(i) { canvas.fill(x: x, y: canvas.y, width: width, height: height, color: fill) }
                canvas.stroke(x: x, y: canvas.y, width: width, height: height, color: (0.55, 0.55, 0.55))
                TextLayout(canvas, text, style: style, width: width - 2 * Self.padding, maxLines: Self.maxCellLines)
                    .draw(at: x + Self.padding, top: canvas.y + Self.padding, color: color(i))
                x += width
            }
        }
        canvas.y += height
    }
}
