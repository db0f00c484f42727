/// The one flow of a command that takes many forms away at once (`expire`, `purge`):
/// `--dry-run` lists exactly what would go and changes nothing; at the prompt it lists what will
/// go, asks, acts and sums up; with `--yes` (which a script needs) it acts and lists each form
/// as it goes. Either way a long run draws a progress bar on a terminal.
struct BatchRemoval<Item> {
    /// The command's name, for the progress bar.
    let name: String
    let columns: [Column]
    let row: (Item) -> [Value]
    let count: () throws -> Int
    /// Calls its argument with each form that would go, without changing anything.
    let forEachCandidate: ((Item) -> Void) throws -> Void
    /// Does it: calls `each` with every form as it goes and `progress` with the running count;
    /// returns how many went.
    let perform: (_ each: (Item) -> Void, _ progress: (Int) -> Void) throws -> Int
    let question: (_ total: Int) -> String
    let nothingToDo: String
    let summary: (_ done: Int) -> String

    func run(in session: Session, output: OutputSink, dryRun: Bool, yes: Bool) throws {
        if dryRun {
            output.beginRows(columns)
            try forEachCandidate { output.row(row($0)) }
            output.endRows()
            return
        }
        let total = try count()
        let progress: (Int) -> Void = { output.progress(name, done: $0, total: max(total, $0)) }
        if try session.needsPreview(yes, question: question(total)) {
            guard total > 0 else {
                output.message(nothingToDo)
                return
            }
            try Self.preview(total: total, limit: session.previewRows, columns: columns, output: output) { emit in
                try forEachCandidate { emit(row($0)) }
            }
            try session.confirm(question(total), yes: false)
            output.message(summary(try perform({ _ in }, progress)))
            return
        }
        output.beginRows(columns)
        _ = try perform({ output.row(row($0)) }, progress)
        output.endRows()
    }

    /// Lists what a confirmation is about: all of it, or the first `limit` rows and a line
    /// counting the rest, so the question is never scrolled away by a long list.
    static func preview(total: Int, limit: Int?, columns: [Column], output: OutputSink,
                        _ rows: (_ emit: ([Value]) -> Void) throws -> Void) throws {
        var shown = 0
        output.beginRows(columns)
        try rows { values in
            if let limit, shown >= limit { return }
            shown += 1
            output.row(values)
        }
        output.endRows()
        if total > shown { output.message("… and \(total - shown) more (\(total) in all)") }
    }
}
