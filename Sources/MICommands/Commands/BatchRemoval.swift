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
    let forEachCandidate: ((Item) throws -> Void) throws -> Void
    /// Does it: calls `each` with every form as it goes (after its batch committed) and
    /// `progress` with the running count after each batch; returns how many went. An error
    /// thrown by `each` stops the run after that batch.
    let perform: (_ each: (Item) throws -> Void, _ progress: (Int) -> Void) throws -> Int
    let question: (_ total: Int) -> String
    let nothingToDo: String
    let summary: (_ done: Int) -> String

    func run(in session: Session, output: OutputSink, dryRun: Bool, yes: Bool) throws {
        if dryRun {
            output.beginRows(columns)
            try forEachCandidate {
                try session.checkpointRow()
                output.row(row($0))
            }
            output.endRows()
            return
        }
        let total = try count()
        // Ctrl-C stops the run between two batches: each batch is one transaction, so the
        // batches before stay done and the rest are left as they were.
        var committed = 0, handled = 0
        let progress: (Int) -> Void = {
            committed = $0
            output.progress(name, done: $0, total: max(total, $0))
        }
        let batchEnds: () throws -> Void = {
            handled += 1
            if handled == committed && committed < total {
                try session.checkpoint("\(summary(committed)); the rest were left as they were")
            }
        }
        if total == 0 && !(yes || session.assumeYes) {
            // Nothing to confirm: `-c expire` once failed asking to confirm "0 forms".
            output.message(nothingToDo)
            return
        }
        if try session.needsPreview(yes, question: question(total)) {
            try Self.preview(total: total, limit: session.previewRows, columns: columns, output: output) { emit in
                try forEachCandidate { emit(row($0)) }
            }
            try session.confirm(question(total), yes: false)
            output.message(summary(try perform({ _ in try batchEnds() }, progress)))
            return
        }
        output.beginRows(columns)
        _ = try perform({
            output.row(row($0))
            try batchEnds()
        }, progress)
        output.endRows()
    }

    /// Lists what a confirmation is about: all of it, or the first `limit` rows and a line
    /// counting the rest, so the question is never scrolled away by a long list.
    static func preview(total: Int, limit: Int?, columns: [Column], output: OutputSink,
                        _ rows: (_ emit: ([Value]) -> Void) throws -> Void) throws {
        var shown = 0
        // Titled, so a preview is not taken for the result.
        output.note("preview: nothing is changed until you answer")
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
