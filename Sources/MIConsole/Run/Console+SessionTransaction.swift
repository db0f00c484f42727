import MICommands
import MIFiles
import MIStore

extension Console {
    private struct AbortAtomicRun: Error {}

    /// The store lost the transaction of an `--atomic` run (a lost race or connection) after the
    /// run had left a trace no rollback takes back, so it is not run again.
    private struct CannotRunAgain: Error {}

    /// Whether the store may run `options`' run again when it loses its transaction: an
    /// `--atomic` run on PostgreSQL. SQLite has one writer at a time: the run's transaction holds
    /// the write lock from its first change, nothing can take it at COMMIT, and the run's output
    /// goes out as it comes.
    static func mayRunAgain(_ options: Run, session: Session) -> Bool {
        options.atomic && session.config.store.path == nil
    }

    /// `--atomic` (commit only if every command succeeded) and `--dry-run` (always roll back):
    /// the whole run inside one store transaction. Nil (and the loop of the attempt that ran
    /// last) when the store could not be opened, locked or could not commit (the error is
    /// printed).
    ///
    /// An `--atomic` run whose lines can be read again from the first (``ScriptInput``: `-c`,
    /// a regular file) is run as the store runs a single change: on PostgreSQL, when the store
    /// loses the transaction to another console (a serialization failure met by a command, or at
    /// COMMIT) or to its connection, the whole run is run again from its first line, on a fresh runner, loop
    /// and variables, within the store's race budget. Its stdout and stderr are held back
    /// (``HeldOutput``) until the transaction ends, so what is shown is one attempt's output,
    /// and the audit relay gets one attempt's rows. Once an attempt has left a trace outside the
    /// store (a file begun, ``FilesBegun``; results sent elsewhere by `\o`; more output than is
    /// held back) it is not run again. A run read from a pipe is read once, as it comes, and is
    /// never run again; its output is written as it goes, as on a SQLite store.
    ///
    /// When nothing was saved, the output itself says so at its end (a closing line; in JSON an
    /// object with `"saved": false`), so `moved true` above it is never read as done; stderr
    /// says it too.
    static func runInSessionTransaction(_ options: Run, session: Session, loop first: RunLoop, source: LineSource,
                                        input: ScriptInput, name: String,
                                        newRunner: () -> CommandRunner) -> (outcome: RunLoop.Outcome?, loop: RunLoop) {
        let err = first.err
        let again = mayRunAgain(options, session: session) && input.canBeReadAgain
        // The loop, variables and settings as the first attempt starts: each later one starts so.
        let start = again ? first.copy(runner: first.runner) : nil
        let display = session.display
        let recall = session.recall
        let held = again ? HeldOutput([first.runner.out, err]) : nil
        defer { held?.letGo() }

        var loop = first
        var outcome: RunLoop.Outcome = .finished(failures: 0)
        var ran = false
        var attempts = 0
        var leftTrace = false
        func attempt() throws {
            attempts += 1
            var lines = source
            if attempts > 1, let start {
                guard !leftTrace else { throw CannotRunAgain() }
                held?.discard()
                session.display = display
                session.recall = recall
                loop = start.copy(runner: newRunner())
                lines = try input.lines()
            }
            let files = FilesBegun.count
            ran = true
            outcome = loop.run(lines, name: name)
            leftTrace = FilesBegun.count != files || loop.runner.sentResultsElsewhere || held?.spilled == true
            // A command that lost a race doomed the whole transaction: the store runs it again.
            if again, let race = loop.lostRace { throw race }
            if options.atomic, outcome != .finished(failures: 0), outcome != .quit(failures: 0) { throw AbortAtomicRun() }
        }
        do {
            let store = try session.store()
            if again {
                try store.administration.withRetriedTransaction(attempt)
            } else {
                try store.administration.withSessionTransaction(end: options.dryRun ? .rollback : .commit, attempt)
            }
            if options.dryRun {
                loop.runner.sink.closingUnsaved("dry run: nothing was saved")
                // Said on stderr too for output sent elsewhere; once where both reach one screen.
                if !loop.runner.out.sharesFile(with: err) { err.write("dry run: nothing was saved\n") }
            }
        } catch is AbortAtomicRun {
            let why = outcome == .stopped(.interrupted) ? "interrupted" : "a command failed"
            loop.runner.sink.closingUnsaved("atomic run: \(why), so nothing was saved")
            err.write("atomic run: \(why), so nothing was saved\n")
        } catch {
            let message = error is CannotRunAgain
                ? "the store lost this run's transaction (to another console's change or to its connection) after the "
                    + "run had written outside the store (a file, \\o, or more output than is held back), so it is not "
                    + "run again"
                : ErrorReport.message(for: error)
            err.writeFailure(message)
            // The commands ran and printed what they did, and then the store could not keep it
            // (a lost race or connection at COMMIT): the output's last line says so, as stderr's.
            if ran && options.atomic {
                loop.runner.sink.closingUnsaved("atomic run: the store could not commit it, so nothing was saved")
                err.write("atomic run: the store could not commit it, so nothing was saved\n")
            }
            return (nil, loop)
        }
        return (outcome, loop)
    }
}
