/// Answers as the foreman's review table shows them.
enum AnswerRendering {
    /// The mark for a cell that must stay empty (`noCells`).
    static let noCellMark = "×"

    static func render(_ question: Question) -> String {
        guard let answer = question.answer else { return "" }
        switch answer {
        case .multipleChoice(let choices):
            return choices.map { question.options.indices.contains($0) ? question.options[$0] : "#\($0) (no such option)" }
                .joined(separator: ", ")
        case .trueFalse(let flag):
            return flag ? "yes" : "no"
        case .shortAnswer(let text):
            return text
        case .numeric(let value):
            if case .number(let literal)? = question.json["answer"] { return literal }
            return String(value)
        case .table(let cells):
            return grid(question, cells)
        case .malformed(let value):
            return "(not a valid answer: \(JSONWriter.compact(value)))"
        }
    }

    /// A text grid: a header line with the column headers, then one line per row starting with
    /// its header; cells padded, separated by " | "; `noCells` show "×".
    static func grid(_ question: Question, _ cells: [[String?]]) -> String {
        let noCells = Set(question.noCells)
        let rowCount = max(question.rows.count, cells.count)
        let columnCount = max(question.columns.count, cells.map(\.count).max() ?? 0)
        var lines: [[String]] = [[""] + (0..<columnCount).map { $0 < question.columns.count ? question.columns[$0] : "" }]
        for row in 0..<rowCount {
            var line = [row < question.rows.count ? question.rows[row] : ""]
            for column in 0..<columnCount {
                let value = row < cells.count && column < cells[row].count ? (cells[row][column] ?? "") : ""
                if noCells.contains(TableCell(row: row, column: column)) {
                    line.append(value.isEmpty ? noCellMark : "\(noCellMark) \(value)")
                } else {
                    line.append(value)
                }
            }
            lines.append(line)
        }
        var widths = [Int](repeating: 0, count: columnCount + 1)
        for line in lines {
            for (column, text) in line.enumerated() { widths[column] = max(widths[column], text.count) }
        }
        return lines.map { line in
            line.enumerated().map { column, text in
                column == line.count - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count)
            }.joined(separator: " | ").trailingSpacesTrimmed
        }.joined(separator: "\n")
    }
}

private extension String {
    var trailingSpacesTrimmed: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
