import ArgumentParser
import MIStore

/// The one flow of a command that changes several chosen forms (`move 'jdoe/*' asmith`,
/// `submit --owner jdoe`, `comment 'jdoe/*' TEXT`, `undo`), each through the command's own
/// per-form store operation with the version it was chosen at:
///
/// - `--dry-run` makes every change in a transaction that is rolled back and lists the outcome
///   (the names a move gives, as the store picks them): nothing is saved. The forms whose change
///   the store refuses are named, and the run fails as the real one would.
/// - At the prompt it does the same to preview what will happen (the first screenful, and a
///   count of the rest), names the forms that cannot be changed before it asks once, then makes
///   the changes to the others; a script needs `--yes`.
/// - The changes are made one form at a time, each its own transaction (joining the script's
///   transaction under `--atomic` or `--dry-run`), or all in one with `atomic`, which the store
///   runs again whole after a lost race (its rows listed once it committed). A form that
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
    /// Runs once after the changes with what they gave (also when a run stopped part-way, with
    /// those made), in their transaction when `atomic`; not for a preview or dry run. A bulk
    /// move makes one notice per technician of its moves' own here; when that fails the
    /// changes and their own notices stand, and a warning says so.
    var afterChanges: ([Outcome]) throws -> Void = { _ in }

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
            let preview = try preview(forms, store: store.administration)
            output.beginRows(columns)
            for values in preview.rows { output.row(values) }
            output.endRows()
            // A pre-check in a script fails where the real run would.
            guard preview.refused.isEmpty else {
                warn(preview.refused, output: output)
                throw CommandError.failed("\(preview.refused.count) of \(forms.count) form(s) cannot be changed by \(verb) "
                                          + "(see the warnings above); \(DryRun.message)")
            }
            output.message(DryRun.message)
            return []
        }
        var previewed = false
        var refused: [Refusal] = []
        var chosen = forms
        if try session.needsPreview(yes, question: question(forms.count)) {
            let preview = try preview(forms, store: store.administration)
            refused = preview.refused
            if !preview.rows.isEmpty {
                try BatchRemoval<Void>.preview(total: preview.rows.count, limit: session.previewRows, columns: columns,
                                               output: output) { emit in preview.rows.forEach(emit) }
            }
            // What will fail is said before the question, not after the answer.
            warn(refused, output: output)
            guard refused.count < forms.count else {
                throw CommandError.failed("nothing to \(verb): none of the \(forms.count) form(s) can be changed "
                                          + "(see the warnings above)")
            }
            if !refused.isEmpty && atomic {
                throw CommandError.failed("\(verb) changes every form or none, and \(refused.count) of \(forms.count) "
                                          + "cannot be changed (see the warnings above); nothing was changed")
            }
            let left = Set(refused.map(\.form.id))
            chosen = forms.filter { !left.contains($0.id) }
            try session.confirm(question(chosen.count), yes: false)
            previewed = true
        }
        let outcomes: [Outcome]
        if atomic {
            // Run again whole after a lost race: its rows are listed once it committed.
            let done = try store.administration.withRetriedTransaction {
                let done = try perform(chosen, in: session, output: nil, made: { _, _ in })
                try afterChanges(done.map(\.outcome))
                return done
            }
            output.beginRows(columns)
            for (form, outcome) in done {
                made(form, outcome)
                output.row(row(form, outcome))
            }
            output.endRows()
            outcomes = done.map(\.outcome)
        } else {
            var madeSoFar: [Outcome] = []
            do {
                outcomes = try perform(chosen, in: session, output: output, made: { form, outcome in
                    made(form, outcome)
                    madeSoFar.append(outcome)
                }).map(\.outcome)
            } catch {
                // The changes made stay made and are told of; the error that stopped the run is
                // the one to report.
                if !madeSoFar.isEmpty { try? afterChanges(madeSoFar) }
                throw error
            }
            do {
                try afterChanges(outcomes)
            } catch {
                output.warning("\(verb): done for \(outcomes.count) form(s), each told of on its own: one notice for all "
                               + "could not be made (\((error as? StoreError)?.message ?? "\(error)"))")
            }
        }
        // After a preview the result looks like it: a line says it was done this time.
        if previewed { output.message("\(verb): done for \(outcomes.count) form(s)") }
        if !refused.isEmpty {
            throw CommandError.failed("\(refused.count) of \(forms.count) form(s) were left as they were: the store "
                                      + "refused them (see the warnings above); \(outcomes.count) done")
        }
        return outcomes
    }

    /// A form the preview found the store would refuse, and why.
    struct Refusal {
        let form: SelectedForm
        let error: StoreError
    }

    /// Every change made in a transaction that is rolled back: the rows the real run would give,
    /// and the forms the store refuses (each change is a savepoint of the transaction, so one
    /// refusal undoes only itself, on PostgreSQL too). A refusal of the whole run (the store busy
    /// or gone, a lost race that needs the transaction retried) ends the preview.
    private func preview(_ forms: [SelectedForm], store: any StoreAdministration) throws -> (rows: [[Value]], refused: [Refusal]) {
        try store.withSessionTransaction(end: .rollback) {
            var rows: [[Value]] = []
            var refused: [Refusal] = []
            for form in forms {
                do {
                    rows.append(row(form, try change(form)))
                } catch let error as StoreError where error.refusesOneForm {
                    refused.append(Refusal(form: form, error: error))
                }
            }
            return (rows, refused)
        }
    }

    private func warn(_ refused: [Refusal], output: OutputSink) {
        for refusal in refused {
            output.warning("\(verb) would fail for form \(refusal.form.id) '\(refusal.form.name)' of \(refusal.form.owner): "
                           + refusal.error.message)
        }
    }

    /// Makes the changes one by one, each listed on `output` as it is made; with no `output`
    /// (all in one transaction) the caller lists them once they committed.
    private func perform(_ forms: [SelectedForm], in session: Session, output: OutputSink?,
                         made: (SelectedForm, Outcome) -> Void) throws -> [(form: SelectedForm, outcome: Outcome)] {
        var done: [(form: SelectedForm, outcome: Outcome)] = []
        output?.beginRows(columns)
        defer { output?.endRows() }
        for form in forms {
            try session.checkpoint("\(verb): \(done.count) of \(forms.count) form(s) done; the rest were left as they were")
            let outcome: Outcome
            do {
                outcome = try change(form)
            } catch {
                guard !done.isEmpty, !atomic else { throw error }
                let stopped = "\(verb) stopped at form \(form.id) '\(form.name)' of \(form.owner): \(error) — "
                    + "\(done.count) of \(forms.count) form(s) done (listed above); the rest were left as they were"
                // The store busy or gone stays what it is (exit 2: a timer tries again later),
                // now with the count.
                if let error = error as? StoreError, error.isTransient {
                    throw StoreError(error.kind, stopped, sqlState: error.sqlState)
                }
                throw CommandError.failed(stopped)
            }
            done.append((form, outcome))
            made(form, outcome)
            output?.row(row(form, outcome))
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
        let result = try store().administration.withSessionTransaction(end: .rollback, body)
        output.message(DryRun.message)
        return result
    }
}
