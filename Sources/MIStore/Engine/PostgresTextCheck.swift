import Foundation

/// PostgreSQL's `text` cannot hold U+0000, and libpq passes text parameters as C strings: a NUL
/// would silently cut the value short (`"T\u{0}x"` stored as `"T"`). Every text bound for the
/// server is checked here first, and one with a NUL is refused, naming the column it was bound
/// for, so an import or a command says what to fix and loses nothing.
enum PostgresTextCheck {
    /// The error for the first argument of `sql` whose text holds a NUL, or nil.
    static func refusal(_ arguments: StoreArguments, sql: String) -> StoreError? {
        for (index, argument) in arguments.enumerated() {
            guard case .text(let text) = argument.storeValue, text.utf8.contains(0) else { continue }
            let field = fieldName(parameter: index + 1, in: sql).map { "the field \($0)" } ?? "parameter \(index + 1)"
            return StoreError(.invalidInput, "Text for \(field) holds a NUL character (U+0000), which the PostgreSQL "
                              + "store cannot keep; remove it and try again (nothing was changed).")
        }
        return nil
    }

    /// The column parameter `number` (1-based, `$N` placeholders: the text as rendered for
    /// PostgreSQL) is compared with or stored in: `column = $N`, or the column at its place in
    /// `INSERT ... (columns) VALUES (...)`.
    static func fieldName(parameter number: Int, in sql: String) -> String? {
        let placeholder = "$\(number)"
        // INSERT INTO table (a, b, c) VALUES ($1, $2, $3)
        if let insert = sql.range(of: #"INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)\s*VALUES\s*\(([^)]*)\)"#,
                                         options: [.regularExpression, .caseInsensitive]) {
            let text = String(sql[insert])
            let groups = text.components(separatedBy: "(")
            if groups.count >= 3 {
                let table = groups[0].split(whereSeparator: \.isWhitespace).last.map(String.init) ?? ""
                let columns = groups[1].components(separatedBy: ")")[0].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let values = groups[2...].joined(separator: "(").components(separatedBy: ")")[0]
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                if let position = values.firstIndex(where: { $0 == placeholder || $0.hasPrefix(placeholder + "::") }),
                   position < columns.count {
                    return table.isEmpty ? columns[position] : "\(table).\(columns[position])"
                }
            }
        }
        // column = $N (SET, WHERE), with an optional table prefix and cast
        let pattern = #"([A-Za-z_][\w.]*)\s*(=|<>|!=|<=|>=|<|>|LIKE|ILIKE)\s*\#(NSRegularExpression.escapedPattern(for: placeholder))(?!\d)"#
        if let match = sql.range(of: pattern, options: [.regularExpression, .caseInsensitive]) {
            return sql[match].split(whereSeparator: { $0.isWhitespace || "=<>!".contains($0) }).first.map(String.init)
        }
        return nil
    }
}
