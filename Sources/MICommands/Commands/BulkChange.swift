import ArgumentParser
import MIStore

/// The one flow of a command that changes several chosen forms (`move 'jdoe/*' asmith`,
/// `submit --owner jdoe`, `comment 'jdoe/*' TEXT`, `undo`), each through the command's own
/// per-form store operation with the version it was chosen at:
///
/// - `--dry-run` makes every change in a transaction that is rolled back and lists the outcome
///   (the names a move gives, as the store picks them): nothing is saved.
/// - At the prompt it does the same to preview what will happen (the first screenful, and a
///   count of the rest), asks once, then makes the changes; a script needs `--yes`.
/// - The changes are made one form at a time, each its own transaction (joining the script's
///   transaction under `--atomic` or `--dry-run`), or all in one with `atomic`. A form that
///   changed since it was chosen is refused by the store (a conflict): the run stops there,
///   says how many were done, and leaves the rest as they were.
struct BulkChange<Outcome> {
    /// What the command does, for messages: `move`, `submit`, `comment`.
    let verb: String
    let columns: [Column]
    /// Changes one form through the command's store operation (with `form.version` as the
    /// expected version). Runs for the preview too, inside a transaction that is rolled back.
    let change: (SelectedForm) throws -> Outcome
    let row: (SelectedForm, Outcome) -> [Value]
    let question: (_ count: Int) -> String
    /// All changes in one transaction (`undo`): every form or none.
    var atomic = false

    /// Runs the flow; returns what the changes that were made (and saved) gave, in order.
    /// `made` hears of each change as soon as it is made (not in a preview or dry run), so a
    /// run that stops part-way still reports what it did.
    @discardableResult
    func run(_ forms: [SelectedForm], in session: Session, output: OutputSink, dryRun: Bool, yes: Bool,
             made: (SelectedForm, Outcome) -> Void = { _, _ in }) throws -> [Outcome] {
        guard !forms.isEmpty else {
            output.message("nothing to \(verb): no form matches")
            return []
        }
        let store = try session.store()
        if dryRun {
            let rows = try preview(forms, store: store)
            output.beginRows(columns)
            for values in rows { output.row(values) }
            output.endRows()
            output.message(DryRun.message)
            return []
        }
        var previewed = false
        if try session.needsPreview(yes, question: question(forms.count)) {
            let rows = try preview(forms, store: store)
            try BatchRemoval<Void>.preview(total: forms.count, limit: session.previewRows, columns: columns,
                                           output: output) { emit in rows.forEach(emit) }
            try session.confirm(question(forms.count), yes: false)
            previewed = true
        }
        let outcomes: [Outcome]
        if atomic {
            outcomes = try store.withSessionTransaction(end: .commit) {
                try perform(forms, in: session, output: output, made: { _, _ in })
            }.map { made($0.form, $0.outcome); return $0.outcome }
        } else {
            outcomes = try perform(forms, in: session, output: output, made: made).map(\.outcome)
        }
        // After a preview the result looks like it: a line says it was done this time.
        if previewed { output.message("\(verb): done for \(outcomes.count) form(s)") }
        return outcomes
    }

    /// Every change made in a transaction that is rolled back: the rows the real run would give.
    private func preview(_ forms: [SelectedForm], store: any StoreService) throws -> [[Value]] {
        try store.withSessionTransaction(end: .rollback) {
            try forms.map { form in row(form, try change(form)) }
        }
    }

    private func perform(_ forms: [SelectedForm], in session: Session, output: OutputSink,
                         made: (SelectedForm, Outcome) -> Void) throws -> [(form: SelectedForm, outcome: Outcome)] {
        var done: [(form: SelectedForm, outcome: Outcome)] = []
        output.beginRows(columns)
        defer { output.endRows() }
        for form in forms {
            try session.checkpoint("\(verb): \(done.count) of \(forms.count) form(s) done; the rest were left as they were")
            let outcome: Outcome
            do {
                outcome = try change(form)
            } catch {
                guard !done.isEmpty, !atomic else { throw error }
                throw CommandError.failed("\(verb) stopped at form \(form.id) '\(form.name)' of \(form.owner): \(error) — "
                                          + "\(done.count) of \(forms.count) form(s) done (listed above); the rest were left as they were")
            }
            done.append((form, outcome))
            made(form, outcome)
            output.row(row(form, outcome))
        }
        return done
    }
}

/// `--dry-run` of a command that changes the store: it runs the command in a transaction that is
/// rolled back, so the output is exactly what the command would do.
public struct DryRunOption: ParsableArguments {
    @Flag(name: .customLong("dry-run"), help: "Show what would change; change nothing.")
    public var dryRun = false

    public init() {}
}

enum DryRun {
    /// The last line of a command run with `--dry-run` (as of a script run with it).
    static let message = "dry run: nothing was saved"
}

extension Session {
    /// Runs `body`, a command's change, for real; or with `dryRun` inside a store transaction that
    /// is rolled back, then says nothing was saved. The transaction holds the store's write lock
    /// only while `body` runs.
    func changing<T>(dryRun: Bool, output: OutputSink, _ body: () throws -> T) throws -> T {
        guard dryRun else { return try body() }
        let result = try store().withSessionTransaction(end: .rollback, body)
        output.message(DryRun.message)
        return result
    }
}
