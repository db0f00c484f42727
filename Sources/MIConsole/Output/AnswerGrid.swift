import MIStore

/// A table answer drawn for people: a header line with the column headers, then one line per
/// row starting with its header; cells padded by display width (DisplayWidth: CJK takes two
/// columns) and separated by " | "; a not-fillable cell
/// (`noCells`) shows "×", or "× value" when it was filled anyway. Only the console draws;
/// the store returns the cells (``ReviewTable``), already bounded by its maximum size.
enum AnswerGrid {
    /// The mark for a cell that must stay empty.
    static let noCellMark = "×"

    static func lines(_ table: ReviewTable) -> [String] {
        let noCells = Set(table.noCells)
        var lines: [[String]] = [[""] + table.columns]
        for (row, header) in table.rows.enumerated() {
            var line = [header]
            for column in table.columns.indices {
                let value = table.cells[row][column] ?? ""
                if noCells.contains(TableCell(row: row, column: column)) {
                    line.append(value.isEmpty ? noCellMark : "\(noCellMark) \(value)")
                } else {
                    line.append(value)
                }
            }
            lines.append(line)
        }
        var widths = [Int](repeating: 0, count: table.columns.count + 1)
        for line in lines {
            for (column, text) in line.enumerated() { widths[column] = max(widths[column], DisplayWidth.of(text)) }
        }
        return lines.map { line in
            var text = line.enumerated().map { column, cell in
                column == line.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - DisplayWidth.of(cell))
            }.joined(separator: " | ")
            while text.last == " " { text.removeLast() }
            return text
        }
    }
}
