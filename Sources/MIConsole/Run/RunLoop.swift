import Foundation
import MICommands
import MIFiles
import MIStore

/// The one loop that serves the prompt, a script file, a pipe and `-c`, re-entered by `source`
/// with the file name and line number saved per level (psql's mainloop, sqlite's process_input).
final class RunLoop {
    /// One input being read: its name and line for messages, and its own `\if`s (an `\if`
    /// must end in the file it began in, as in psql).
    struct Location {
        let name: String
        var line: Int
        var branches = ConditionalStack()
        /// The folder of the script file being read (`\ir`), nil for the prompt, -c or a pipe.
        var folder: String?
    }

    enum Outcome: Equatable {
        case finished(failures: Int)
        case stopped(ExitStatus)
        /// `quit` (or `exit`, `\q`) after `failures` failing commands: a script that kept going
        /// past failures (`--on-error continue`) still exits 3 and an `--atomic` run still rolls
        /// back, exactly as at the end of its input.
        case quit(failures: Int)
    }

    let runner: CommandRunner
    let err: OutputStream
    /// `--on-error`: whether a failing line stops a script, unless `ON_ERROR_STOP` says.
    let defaultStopOnError: Bool
    /// psql's `ON_ERROR_STOP` (`-v`, `\set`) over `--on-error`, for the line being run.
    var stopOnError: Bool { variables.stopsOnError ?? defaultStopOnError }
    let maxDepth = 16
    var stack: [Location] = []
    /// `-v`, `\set` and the built-ins (``ScriptVariables``), for the whole run.
    let variables: ScriptVariables
    /// The words of the last command run, for `\watch`.
    var lastCommand: [String]?
    /// `\timing`: each command's wall time after its result.
    var timing = false
    /// The rc file is being read (``StartupFile``): only what it may hold runs, and an error
    /// in it is reported with its line and passed over, as psql does with `~/.psqlrc`.
    private var readingStartupFile = false
    /// The status of each failure a non-interactive run went on past (`--on-error continue`):
    /// its exit status keeps their kind (``ExitStatus/ofContinuedScript(_:)``).
    private(set) var failureStatuses: [ExitStatus] = []
    /// A failure of this run that was a race lost on PostgreSQL (``StoreError/isRetryable``):
    /// inside an `--atomic` run's transaction it dooms the transaction, which the store may run
    /// again whole.
    private(set) var lostRace: StoreError?

    init(runner: CommandRunner, err: OutputStream, stopOnError: Bool, variables: ScriptVariables = ScriptVariables()) {
        self.runner = runner
        self.err = err
        self.defaultStopOnError = stopOnError
        self.variables = variables
    }

    /// A loop as this one is now, over `runner`: its variables (a copy), `\timing` and
    /// `--on-error`, for a run started again from its first line.
    func copy(runner: CommandRunner) -> RunLoop {
        let loop = RunLoop(runner: runner, err: err, stopOnError: defaultStopOnError, variables: variables.copy())
        loop.timing = timing
        return loop
    }

    /// Reads and runs lines until end of input. Non-interactive sources stop at the first
    /// failing command unless `stopOnError` is off; the prompt never stops on an error.
    func run(_ source: LineSource, name: String) -> Outcome {
        stack.append(Location(name: name, line: 0, folder: (source as? StreamLineSource)?.folder))
        defer { stack.removeLast() }
        // A script run (not the prompt, not a file sourced by a running script) checks its move
        // targets against one roster of technicians for the run (TechnicianRoster).
        let session = runner.session
        let scriptRun = !source.isInteractive && session.roster == nil
        if scriptRun { session.beginScriptRun() }
        defer { if scriptRun { session.endScriptRun() } }
        var failures = 0
        while let line = source.nextLine() {
            stack[stack.count - 1].line += 1
            if source.isInteractive {
                Interruption.forget()
            } else if Interruption.isRequested {
                // Ctrl-C during a script: it ends at the next line, whatever --on-error says.
                return interruptedScript()
            }
            let outcome = source.unreadableLine.map { report($0, interactive: source.isInteractive) }
                ?? runLine(line, interactive: source.isInteractive)
            reportStoreEvents()
            switch outcome {
            case .ok: continue
            case .quit(let nestedFailures):
                return .quit(failures: source.isInteractive ? 0 : failures + nestedFailures)
            case .failed(let status):
                if source.isInteractive || readingStartupFile { continue }  // a person saw the error; Ctrl-D still exits 0
                failures += 1
                failureStatuses.append(status)
                if stopOnError || status == .interrupted { return .stopped(status) }
            case .nestedStopped(let status):
                // At the prompt a failing `source` was reported by its file and line; the person
                // stays at the prompt (psql's \i). Only a script run stops.
                if source.isInteractive { continue }
                if stopOnError || status == .interrupted { return .stopped(status) }
                failures += 1
                failureStatuses.append(status)
            }
        }
        // Ctrl-C also ends a pipe's writer, and with it the input.
        if !source.isInteractive && Interruption.isRequested { return interruptedScript() }
        if let unclosed = stack[stack.count - 1].branches.unclosedError {
            if case .failed(let status) = report(unclosed, interactive: source.isInteractive), !source.isInteractive {
                failures += 1
                if stopOnError { return .stopped(status) }
            }
        }
        return .finished(failures: failures)
    }

    private func interruptedScript() -> Outcome {
        runner.commandEnded()
        let location = stack.last.map { "\($0.name):\($0.line): " } ?? ""
        err.write(location + StopSignal.reason + ": the script stopped here\n")
        err.flush()
        return .stopped(.interrupted)
    }

    enum LineOutcome { case ok, quit(failures: Int), failed(ExitStatus), nestedStopped(ExitStatus) }

    /// A line: its commands in order (psql's `\\` separates several), up to the first that
    /// does not end well.
    private func runLine(_ typed: String, interactive: Bool) -> LineOutcome {
        for command in LineLexer.lex(typed).commands {
            let outcome = runCommandLine(command, interactive: interactive)
            guard case .ok = outcome else { return outcome }
        }
        return .ok
    }

    private func runCommandLine(_ command: LexedCommand, interactive: Bool) -> LineOutcome {
        let meta = command.meta
        // `\if` and its kin are read before anything else: in a branch not taken every other
        // command is skipped with its variables not looked up (one may be unset there).
        if let meta, let outcome = conditional(meta, command, interactive: interactive) { return outcome }
        guard stack.last?.branches.isActive ?? true else { return .ok }
        // An expression takes each variable as one operand.
        if meta == "\\let" { return assign(command, interactive: interactive) }
        let isCommand = meta == nil || CommandRegistry.builtin(named: meta!) == nil
        var words: [String]
        let gset: [String]?
        do {
            words = try command.words(value: variables.value)
            gset = try command.gsetWords(value: variables.value)
        } catch {
            if isCommand { variables.commandEnded(status: ErrorReport.status(for: error), rows: 0) }
            return report(error, interactive: interactive)
        }
        guard let first = words.first else {
            return gset == nil ? .ok : report(CommandError.failed("\\gset needs a command before it"), interactive: interactive)
        }
        if readingStartupFile, gset != nil || !StartupFile.allows(words) {
            return report(CommandError.failed("an rc file holds backslash commands and 'set' (display settings), "
                                              + "not '\(gset != nil ? "\\gset" : first)'; put it in a script"),
                          interactive: interactive)
        }
        if gset != nil, let builtin = CommandRegistry.builtin(named: first), builtin != "\\h" {
            return report(CommandError.failed("\\gset captures a command's result; \(builtin) has none"), interactive: interactive)
        }
        switch CommandRegistry.builtin(named: first) {
        case "quit":
            return .quit(failures: 0)
        case "source":
            return source(Array(words.dropFirst()).map(UserPath.expanded), interactive: interactive)
        case "\\ir":
            // psql's \ir: a relative FILE is found beside the script being run (at the prompt,
            // in -c or a pipe, in the current folder, as `source` finds it).
            var arguments = Array(words.dropFirst()).map(UserPath.expanded)
            if arguments.count == 1, !arguments[0].hasPrefix("/"), let folder = stack.last?.folder {
                arguments[0] = folder + "/" + arguments[0]
            }
            return source(arguments, interactive: interactive)
        case "\\x":
            // psql's \x: toggles between on and off (auto goes off), or sets what it is given.
            let value = words.count > 1 ? words[1] : (runner.session.display.expanded == .off ? "on" : "off")
            words = ["set", "expanded", value] + words.dropFirst(2)
        case "\\h":
            words = ["help"] + words.dropFirst()
        case .some(let name):
            // psql's `'-n'` is text to echo: only a word written bare is an option.
            let quotedFirst = (meta == nil ? command.words.dropFirst() : command.words[...]).first?.quoted ?? false
            return backslash(name, Array(words.dropFirst()), quotedFirst: quotedFirst, interactive: interactive)
        case nil:
            break
        }
        lastCommand = words
        return runCommand(words, gset: gset, interactive: interactive)
    }

    /// Runs a command line, then sets `ERROR`, `LAST_EXIT` and `ROW_COUNT` (and with `\gset`,
    /// a variable per column of its result).
    func runCommand(_ words: [String], gset: [String]? = nil, paging: Bool = true, interactive: Bool) -> LineOutcome {
        let started = timing ? ContinuousClock.now : nil
        defer {
            if let started {
                let elapsed = ContinuousClock.now - started
                let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                runner.sideLine("Time: " + String(format: "%.3f", milliseconds) + " ms")
            }
        }
        do {
            guard gset == nil || gset!.count <= 1 else { throw CommandError.failed("usage: COMMAND \\gset [PREFIX]") }
            let tap = try runner.run(words: words, captures: gset != nil, paging: paging)
            if let prefix = gset?.first ?? gset.map({ _ in "" }) {
                for (name, value) in try tap.assignments(prefix: prefix) {
                    if let value { try variables.set(name, value) } else { try variables.unset(name) }
                }
            }
            runner.commandEnded()
            variables.commandEnded(status: .success, rows: tap.rowCount)
            return .ok
        } catch let interrupted as Interrupted where interactive {
            // Ctrl-C at the prompt: what was done, then the prompt again (not a failure).
            runner.commandEnded()
            variables.commandEnded(status: .interrupted, rows: 0)
            err.write(TerminalText.escape(interrupted.description, keepNewlines: false) + "\n")
            err.flush()
            return .ok
        } catch let cancelled as Session.Cancelled {
            // "n" or Ctrl-C at a confirmation: said quietly, and not a failure.
            runner.commandEnded()
            variables.commandEnded(status: .success, rows: 0)
            err.write(cancelled.description + "\n")
            err.flush()
            return .ok
        } catch {
            variables.commandEnded(status: ErrorReport.status(for: error), rows: 0)
            return report(error, interactive: interactive)
        }
    }

    /// Runs the rc file (``StartupFile``) before the run's own input; a file refused is named
    /// in a warning. Its notes (`note: expanded is auto`) are not shown: nobody typed those lines.
    func runStartupFile(environment: [String: String]) {
        switch StartupFile.open(environment: environment) {
        case .none:
            return
        case .refused(let path, let reason):
            err.write(ErrorStyle.current.warning("warning:") + " " + TerminalText.escape("\(path) is not read: \(reason)", keepNewlines: false)
                      + "\n")
            err.flush()
        case .file(let path, let source):
            readingStartupFile = true
            let quiet = runner.quiet
            runner.quiet = true
            defer {
                readingStartupFile = false
                runner.quiet = quiet
                lastCommand = nil  // `\watch` repeats what the person ran, not the rc file's `set`
            }
            // Its errors were reported line by line; `quit` is not among what it may hold.
            _ = run(source, name: path)
        }
    }

    /// `source FILE`: runs a script inside this one, with its own name and line numbers.
    private func source(_ arguments: [String], interactive: Bool) -> LineOutcome {
        guard arguments.count == 1 else {
            return report(CommandError.failed("usage: source FILE (also \\i FILE; \\ir FILE beside the running script)"),
                          interactive: interactive)
        }
        guard stack.count < maxDepth else {
            return report(CommandError.failed("source nested more than \(maxDepth) levels deep (a file sourcing itself?)"),
                          interactive: interactive)
        }
        let file: StreamLineSource
        do {
            file = try StreamLineSource(path: arguments[0])
        } catch {
            return report(error, interactive: interactive)
        }
        switch run(file, name: arguments[0]) {
        case .finished(let failures): return failures == 0 ? .ok : .nestedStopped(.scriptStopped)
        case .stopped(let status): return .nestedStopped(status)
        case .quit(let failures): return .quit(failures: failures)
        }
    }

    /// After a line: what the store did that went unsaid (``StoreEvent``), e.g. that it lost its
    /// connection and opened it again (a PostgreSQL failover), and to which server.
    private func reportStoreEvents() {
        guard let store = runner.session.storeIfOpened else { return }
        for event in store.takeEvents() {
            let text = switch event {
            case .reconnected(let host, let seconds):
                "Reconnected to the PostgreSQL store at \(host) after \(String(format: "%.1f", seconds)) s."
            case .standbyLag(let host, let seconds):
                "Read from the standby at \(host), which lags \(String(format: "%.0f", seconds)) s behind the primary."
            case .standbyUnavailable(let reason):
                "The standby (store.readUrl) is not used: \(reason) Reading from the primary."
            case .auditRelayFailed(let reason):
                "warning: audit rows are not reaching the system logger (audit.syslog): \(reason) The store keeps them; not said again this session."
            }
            err.write(TerminalText.escape(text, keepNewlines: false) + "\n")
        }
        err.flush()
    }

    /// Prints `FILE:LINE: message` (plain `error: message` at the prompt) and classifies it.
    func report(_ error: Error, interactive: Bool) -> LineOutcome {
        runner.commandEnded()
        if let race = error as? StoreError, race.isRetryable { lostRace = race }
        let message = ErrorReport.message(for: error)
        let prefix: String
        if interactive || stack.last?.name == "-c" {
            prefix = "error: "
        } else if let location = stack.last {
            prefix = "\(location.name):\(location.line): "
        } else {
            prefix = ""
        }
        // One line per error: a newline in a form name must not fake a line of output.
        let label = prefix.isEmpty ? "" : ErrorStyle.current.error(String(prefix.dropLast())) + " "
        err.write(label + TerminalText.escape(message, keepNewlines: false) + "\n")
        err.flush()
        return .failed(ErrorReport.status(for: error))
    }
}
