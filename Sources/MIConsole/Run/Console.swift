import Foundation
import Logging
import MICommands
import MIDirectory
import MIStore

/// What the console runs once the launch layer (MILaunch) has opened the directory and the
/// store and logged the user in: commands from `-c`, `-f`, a pipe or the prompt, through one
/// run loop, with `--atomic` and `--dry-run` around the whole run.
public enum Console {
    /// What to run, from the command line.
    public struct Run: Sendable {
        public var commands: [String] = []
        public var scriptFile: String?
        public var continueOnError = false
        /// `--atomic`: the whole script in one store transaction, all or nothing.
        public var atomic = false
        /// `--dry-run`: run everything, print what would change, save nothing.
        public var dryRun = false
        /// `--json-lines`: a run of several commands writes each one's JSON value on a line of
        /// its own instead of one JSON array.
        public var jsonLines = false
        /// `-v NAME=VALUE` / `--set NAME=VALUE`: the run's variables to begin with (`:NAME`).
        public var variables: [Variable] = []
        /// `-q` / `--quiet`: results and errors only (no banner, row counts, notes or progress).
        public var quiet = false
        /// Whether the rc file (``StartupFile``) is read first; `-X` / `--no-rc` says no.
        public var readsStartupFile = true

        public struct Variable: Sendable, Equatable {
            public let name: String
            /// nil: `-v NAME` without `=`, which unsets NAME (psql's way).
            public let value: String?
        }

        public init() {}

        /// `NAME=VALUE` as `-v` takes it, split at the first `=` (`NAME` alone unsets NAME); nil
        /// when the name is not one a variable can take (letters, digits, `_`, not starting
        /// with a digit).
        public static func variable(_ assignment: String) -> Variable? {
            ScriptVariables.assignment(assignment).map { Variable(name: $0.name, value: $0.value) }
        }

        /// Why `-v` cannot take `assignment` (a bad name, a built-in such as `USER`, a value
        /// `ON_ERROR_STOP` cannot take), or nil: the rules `\set` follows.
        public static func variableRefusal(_ assignment: String) -> String? {
            guard let variable = variable(assignment) else {
                return "-v takes NAME=VALUE (or NAME, to unset it), the name of letters, digits and '_' "
                    + "(not starting with a digit): '\(assignment)'"
            }
            do {
                _ = try ScriptVariables([(variable.name, variable.value)])
                return nil
            } catch {
                return "-v \(variable.name): \(error)"
            }
        }

        /// Whether this run prompts a person (stdin a terminal, no commands or script named, and
        /// neither `--atomic` nor `--dry-run`, which are refused there).
        public func prompts(stdinIsTerminal: Bool) -> Bool {
            stdinIsTerminal && commands.isEmpty && scriptFile == nil && !atomic && !dryRun
        }

        /// A lone `-c` command (not `source`, not `--dry-run` or `--atomic`, which add a closing
        /// value): its output is that command's own, as it always was.
        var isOneCommand: Bool {
            guard commands.count == 1, !dryRun, !atomic else { return false }
            let first = (try? LineLexer.split(commands[0]))?.first
            return first.flatMap(CommandRegistry.builtin(named:)) != "source"
        }

        /// How stdout is shaped over the run (``RunOutput``): at the prompt and for one `-c`
        /// command each result stands alone; other runs write one JSON document (or JSON Lines)
        /// and one CSV header per table.
        func output(interactive: Bool) -> RunOutput {
            if interactive || (isOneCommand && !jsonLines) { return .perCommand }
            return RunOutput(json: jsonLines ? .lines : .document, oneCSVHeader: !isOneCommand)
        }

    }

    /// Runs `run` for `session` and returns the process's exit status. `environment` is the
    /// (scrubbed, for a privileged run) environment: the pager and the history file.
    public static func run(_ run: Run, session: Session, environment: [String: String],
                           out: OutputStream, err: OutputStream) -> ExitStatus {
        let interactive = run.commands.isEmpty && run.scriptFile == nil && isatty(0) == 1
        let newRunner = {
            CommandRunner(session: session, out: out, err: err, runOutput: run.output(interactive: interactive),
                          quiet: run.quiet, pagerCommand: Pager.command(environment: environment))
        }
        let runner = newRunner()
        let variables: ScriptVariables
        do {
            variables = try ScriptVariables(run.variables.map { ($0.name, $0.value) })
        } catch {
            err.writeFailure(error)
            return .failure
        }
        variables.setSession(user: session.user.uid, roles: session.user.roles.map(\.rawValue)) {
            var names: [String] = []
            try session.forEachVisibleCrew { names.append($0.name) }
            return names
        }
        let loop = RunLoop(runner: runner, err: err, stopOnError: !run.continueOnError, variables: variables)

        let name: String
        let input: ScriptInput?
        var prompted: LineSource?
        if !run.commands.isEmpty {
            input = .commands(run.commands)
            name = "-c"
        } else if let scriptFile = run.scriptFile {
            do {
                input = try ScriptInput.script(path: scriptFile, readWhole: mayRunAgain(run, session: session))
            } catch {
                err.writeFailure(error)
                return .failure
            }
            name = scriptFile
        } else if interactive {
            // Both would hold the store's write lock from the session's first change until the
            // person quits, and every other console's changes would fail "busy" meanwhile
            // (docs/user-guide.md).
            guard !run.atomic else {
                err.write("miadmin: --atomic is for scripts (-c, -f or a pipe), not the prompt\n")
                return .failure
            }
            guard !run.dryRun else {
                err.write("miadmin: --dry-run is for scripts (-c, -f or a pipe), not the prompt: it would hold the "
                          + "store's write lock until you quit; at the prompt give --dry-run to the command itself "
                          + "(move, submit, expire, ...)\n")
                return .failure
            }
            if !run.quiet { err.write(banner(session) + "\n") }
            showUnreadNotices(session, err: err)
            err.flush()
            let readline: ReadlineSource
            do {
                readline = try prompt(for: session, environment: environment, variables: variables)
            } catch {
                err.write("miadmin: \(error)\n")
                return .failure
            }
            // What the command listed so far must be on the screen before the question.
            session.confirmer = { question in
                runner.sink.finish()
                out.endPaging()
                // Under `\o` the rows the question is about went to the file: say where.
                if let file = runner.outputFile {
                    err.write("note: what this asks about was listed in " + TerminalText.escape(file.path, keepNewlines: false)
                              + " (\\o); '\\o' alone lists on the screen again\n")
                    err.flush()
                }
                return readline.confirm(question)
            }
            session.previewRows = Self.previewRows()
            input = nil
            prompted = readline
            name = "<prompt>"
        } else {
            // fdopen rather than the `stdin` global, which strict concurrency rejects.
            input = .stream(StreamLineSource(file: fdopen(0, "r"), ownsFile: false))
            name = "<stdin>"
        }
        let source: LineSource
        do {
            guard let lines = try input?.lines() ?? prompted else { return .failure }
            source = lines
        } catch {
            err.writeFailure(error)
            return .failure
        }
        if run.readsStartupFile { loop.runStartupFile(environment: environment) }
        if !source.isInteractive { StopSignal.install() }
        // The JSON document is closed however the run ends: a failing line, quit, Ctrl-C; by
        // the runner of the attempt that counted when an `--atomic` run was run again.
        var ending = runner
        defer { ending.runEnded() }
        guard run.atomic || run.dryRun, let input else {
            return StopSignal.exitStatus(for: status(of: loop.run(source, name: name), commandLine: name == "-c",
                                                     failures: loop.failureStatuses))
        }
        runner.unsavedRun = run.dryRun
        session.dryRun = run.dryRun
        let (outcome, last) = runInSessionTransaction(run, session: session, loop: loop, source: source,
                                                      input: input, name: name, newRunner: newRunner)
        ending = last.runner
        return outcome.map { StopSignal.exitStatus(for: status(of: $0, commandLine: name == "-c", failures: last.failureStatuses)) }
            ?? .unreachable
    }

    /// How many rows a confirmation lists before it asks: what fits on the screen with the
    /// header, the count line and the question, allowing each row to wrap once (a form row with
    /// its two times is about 125 columns wide).
    static func previewRows() -> Int? {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return max(5, (Int(size.ws_row) - 8) / 2)
    }

    /// Unread notices for the user who just logged in, then marked read.
    static func showUnreadNotices(_ session: Session, err: OutputStream) {
        do {
            let store = try session.storeForOwnRows()
            let notices = try store.listing.notices(for: session.user.uid, unreadOnly: true)
            guard !notices.isEmpty else { return }
            err.write("You have \(notices.count) unread notice\(notices.count == 1 ? "" : "s"):\n")
            for notice in notices {
                err.write("  \(TimeText(zone: session.display.timeZone).table(notice.created))  " + TerminalText.escape(notice.text, keepNewlines: false) + "\n")
            }
            _ = try store.changes.markRead(ids: notices.map(\.id), actor: session.user.uid)
            session.noticesShownAtLogin = notices.count
            err.write("  (now marked read; 'notices --all' lists them again)\n")
        } catch {
            err.writeFailure("could not read your notices: " + ErrorReport.message(for: error))
        }
    }

    /// One line at login: who, with which roles, on which store and directory. The uid and the
    /// display name come from the directory, so they are escaped (an ESC in `cn` must not
    /// retitle the terminal).
    static func banner(_ session: Session) -> String {
        banner(user: session.user, storePath: session.config.store.displayName, directoryURI: session.config.ldap.uri)
    }

    static func banner(user: DirectoryUser, storePath: String, directoryURI: String) -> String {
        let roles = user.roles.map(\.rawValue).joined(separator: ", ")
        let uid = TerminalText.escape(user.uid, keepNewlines: false)
        let name = TerminalText.escape(user.name, keepNewlines: false)
        return "miadmin: \(uid) (\(name); \(roles)) · store \(storePath) · "
            + "directory \(directoryURI) · 'help' lists commands, Ctrl-D quits"
    }

    /// The readline prompt `uid@role> ` with history and completion for this user.
    static func prompt(for session: Session, environment: [String: String],
                       variables: ScriptVariables = ScriptVariables()) throws -> ReadlineSource {
        let role = session.user.roles.first?.rawValue ?? "?"
        var sources = CompletionEngine.Sources()
        sources.variableNames = { variables.names }
        // User ids complete only for the roles that may list users: Tab must not list the
        // directory to someone `users` refuses. One prefix search per Tab (capped), never the
        // whole directory.
        let mayListUsers = (try? session.require(UsersCommand.roles, for: "users")) != nil
        sources.userIDs = { prefix, techniciansOnly in
            guard mayListUsers else { return [] }
            // A foreman's targets and owners are the technicians of his crews: offered
            // from the crews, not from a directory search that the crews would then thin out.
            if techniciansOnly, let crew = (try? session.crewReach().scope)?.owners {
                return crew.filter { $0.hasPrefix(prefix) }.sorted().prefix(200).filter { uid in
                    (try? session.directory.user(uid: uid))??.has(.technician) == true
                }
            }
            return (try? session.directory.userIDs(prefix: prefix, role: techniciansOnly ? .technician : nil)) ?? []
        }
        // Crew names, read on the first Tab that wants them and again once the session has read
        // its crews again (`refresh`, or `teams.refreshSeconds` passed): a crew new since then
        // completes, a removed one is no longer offered.
        var crewNames: (names: [String], readAt: Double?)?
        sources.crewNames = {
            if let crewNames, crewNames.readAt == session.crewsReadAt { return crewNames.names }
            var names: [String] = []
            try? session.forEachVisibleCrew { names.append($0.name) }
            crewNames = (names, session.crewsReadAt)
            return names
        }
        sources.formReferences = { prefix, trashed in
            do {
                return try session.store().listing.formReferenceSuggestions(prefix: prefix, owner: session.visibleOwner(),
                                                                    scope: trashed ? .trashed : .live)
            } catch {
                return []
            }
        }
        let engine = CompletionEngine(catalog: .shared, sources: sources)
        let history = HistoryFile(path: HistoryFile.path(for: session.user.uid, environment: environment))
        return try ReadlineSource(prompt: "\(TerminalText.escape(session.user.uid, keepNewlines: false))@\(role)> ",
                              history: history, completion: engine)
    }

    /// `-c` exits with the failed command's own status; a script that stopped exits 3
    /// (2 when what stopped it was an unreachable directory or store); one that went on past
    /// failures exits as ``ExitStatus/ofContinuedScript(_:)`` says.
    static func status(of outcome: RunLoop.Outcome, commandLine: Bool, failures: [ExitStatus] = []) -> ExitStatus {
        switch outcome {
        case .quit(failures: 0), .finished(failures: 0): return .success
        case .quit, .finished: return .ofContinuedScript(failures)
        case .stopped(let status):
            if status == .unreachable || status == .interrupted || commandLine { return status }
            return .scriptStopped
        }
    }
}
