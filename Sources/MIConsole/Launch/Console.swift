import Foundation
import Logging
import MICommands
import MIDirectory
import MIStore

/// Starts a console session: config, login, then commands from `-c`, `-f`, a pipe or the prompt.
public enum Console {
    public static func launch(_ options: LaunchOptions) -> ExitStatus {
        let out = OutputStream(fd: 1)
        let err = OutputStream(fd: 2)
        defer { out.flush(); err.flush() }
        func fail(_ error: Error) -> ExitStatus {
            out.flush()
            err.write("miadmin: " + TerminalText.escape(ErrorReport.message(for: error), keepNewlines: false) + "\n")
            return ErrorReport.status(for: error)
        }

        // A privileged run (the installed setgid binary) opens what the group protects, then
        // gives the group up for good before anything the user names is touched.
        let privileged = Privilege.isPrivileged
        var environment = ProcessInfo.processInfo.environment
        if privileged {
            Privilege.harden()
            if let refusal = refusalOfPrivilegedRun(options, environment: environment) {
                err.write("miadmin: \(refusal)\n")
                return .failure
            }
            Privilege.scrubEnvironment()
            environment = Privilege.scrubbed(environment)
        }
        let logger = makeLogger(environment)
        let systemConfig = InstallLayout.systemConfigPath(executable: InstallLayout.executable)
        let config: AppConfig
        let directorySettings: DirectorySettings
        var openedStore: FormStore?
        do {
            let path = privileged ? systemConfig
                : AppConfig.resolvePath(explicit: options.configPath, environment: environment, systemPath: systemConfig)
            if privileged, let reason = InstallLayout.untrustedReason(path) {
                throw Privilege.Refusal(description: "the system config \(path) cannot be trusted: \(reason) (docs/install.md)")
            }
            config = try options.earlyConnection?.config(ifLoadedFrom: path) ?? AppConfig.load(path: path)
            directorySettings = try config.directorySettings(privileged: privileged) { warning in
                err.write("miadmin: warning: \(warning)\n")
            }
            if privileged || options.initStore {
                openedStore = try openStore(config, privileged: privileged, create: options.initStore, logger: logger,
                                            clock: privileged ? SystemClock() : clock(environment))
            }
            if privileged { try Privilege.dropForGood() }
        } catch let refusal as Privilege.Refusal {
            err.write("miadmin: \(refusal)\n")
            return .failure
        } catch {
            return fail(error)
        }
        if options.initStore {
            out.write("store \(config.store.displayName) is ready (schema up to date)\n")
            return .success
        }
        let stdinIsTerminal = isatty(0) == 1
        let willPrompt = stdinIsTerminal && options.commands.isEmpty && options.scriptFile == nil
            && !options.atomic && !options.dryRun

        guard let uid = options.user ?? environment["MIADMIN_USER"], !uid.isEmpty else {
            err.write("miadmin: no user: pass --user UID or set MIADMIN_USER\n")
            return .failure
        }
        let session: Session
        do {
            // A password typed at the terminal takes seconds: the connection opened meanwhile
            // could have been closed as idle by then, so it is not used after a typed one.
            let typesPassword = options.passwordFile == nil && getenv("MIADMIN_PASSWORD") == nil
            var password = try PasswordSource.read(passwordFile: options.passwordFile, user: uid,
                                                    interactive: stdinIsTerminal) { warning in
                err.write("miadmin: warning: \(warning)\n")
            }
            let directory = Directory(settings: directorySettings, logger: logger)
            if !typesPassword {
                directory.openedAhead = options.earlyConnection?.connection(for: directorySettings)
            }
            // The prompt reads the store right after login (unread notices), then starts readline:
            // both are set up on threads of their own while the login waits on the directory.
            // Started only now, when this thread is about to wait: earlier, they took the cores
            // from the command-line parse and the TLS handshake (docs/benchmarks.md). Readline's
            // set-up reads the user's ~/.inputrc: a setgid run has given the group up by now.
            let storeOpening = willPrompt && openedStore == nil
                ? (try? clock(environment)).map { EarlyStoreOpening(config, clock: $0, logger: logger) } : nil
            if willPrompt { ReadlineSource.prepareInBackground() }
            let authenticated = Result { try directory.authenticate(uid: uid, password: password) }
            SecretFile.wipe(&password)
            let user = try authenticated.get()
            session = Session(config: config, user: user, directory: directory, logger: logger,
                              clock: privileged ? SystemClock() : try clock(environment), store: openedStore)
            session.storeOpening = storeOpening
            session.assumeYes = options.assumeYes
            session.display.format = options.format
            session.display.csvRaw = options.csvRaw
            session.display.expanded = options.expanded
            session.display.pager = !options.noPager
            session.display.timeZone = config.display.timeZone
        } catch let error as PasswordSource.Failure {
            err.write("miadmin: \(error.description)\n")
            return .failure
        } catch {
            return fail(error)
        }

        let runner = CommandRunner(session: session, out: out, err: err,
                                   pagerCommand: Pager.command(environment: environment))
        let loop = RunLoop(runner: runner, err: err, stopOnError: !options.continueOnError)

        let source: LineSource
        let name: String
        if !options.commands.isEmpty {
            source = CommandListSource(options.commands)
            name = "-c"
        } else if let scriptFile = options.scriptFile {
            do {
                source = try StreamLineSource(path: scriptFile)
            } catch {
                err.write("miadmin: " + TerminalText.escape(ErrorReport.message(for: error), keepNewlines: false) + "\n")
                return .failure
            }
            name = scriptFile
        } else if stdinIsTerminal {
            // Both would hold the store's write lock for the whole session, until the person quits,
            // and every other console's changes would fail "busy" meanwhile (docs/user-guide.md).
            guard !options.atomic else {
                err.write("miadmin: --atomic is for scripts (-c, -f or a pipe), not the prompt\n")
                return .failure
            }
            guard !options.dryRun else {
                err.write("miadmin: --dry-run is for scripts (-c, -f or a pipe), not the prompt: it would hold the "
                          + "store's write lock until you quit; at the prompt use import, expire or purge --dry-run\n")
                return .failure
            }
            err.write(banner(session) + "\n")
            showUnreadNotices(session, err: err)
            err.flush()
            let readline: ReadlineSource
            do {
                readline = try prompt(for: session, environment: environment)
            } catch {
                err.write("miadmin: \(error)\n")
                return .failure
            }
            // What the command listed so far must be on the screen before the question.
            session.confirmer = { question in
                runner.sink.finish()
                out.endPaging()
                return readline.confirm(question)
            }
            session.previewRows = Self.previewRows()
            source = readline
            name = "<prompt>"
        } else {
            // fdopen rather than the `stdin` global, which strict concurrency rejects.
            source = StreamLineSource(file: fdopen(0, "r"), ownsFile: false)
            name = "<stdin>"
        }
        guard options.atomic || options.dryRun else {
            return status(of: loop.run(source, name: name), commandLine: name == "-c")
        }
        runner.unsavedRun = options.dryRun
        return runInSessionTransaction(options, session: session, runner: runner) {
            loop.run(source, name: name)
        }.map { status(of: $0, commandLine: name == "-c") } ?? .unreachable
    }

    private struct AbortAtomicRun: Error {}

    /// Why a privileged run must not start with these options and this environment, or nil.
    /// The user's own config, and variables that choose the directory, roles, store, policy or
    /// clock, are the user's choice; a privileged run trusts only the system config.
    static func refusalOfPrivilegedRun(_ options: LaunchOptions, environment: [String: String]) -> String? {
        if options.configPath != nil {
            return "--config is not allowed for the installed miadmin: it reads only the system config "
                + "(docs/security.md). Run a build of your own to use a config of your own."
        }
        let refused = Privilege.refused(in: environment)
        if !refused.isEmpty {
            return "the installed miadmin reads only the system config; unset \(refused.joined(separator: ", ")) "
                + "(docs/security.md)"
        }
        return nil
    }

    /// Opens the store before a privileged run gives up the group: an existing store only (a
    /// mistyped store.path must not start an empty one), whose three files belong to root,
    /// unless root's `--init-store` asked to create it; created 0660 so the group, and only the
    /// group, shares it. Every connection is opened now, because after the drop the process may
    /// not open the file again.
    static func openStore(_ config: AppConfig, privileged: Bool, create: Bool, logger: Logger,
                          clock: any StoreClock) throws -> FormStore {
        let path: String
        switch config.store.location {
        case .postgres(let target):
            // The server creates nothing on disk here: --init-store only applies the schema,
            // which opening does anyway; the connection outlives the group drop.
            return try config.openPostgresStore(target, privileged: privileged, clock: clock, logger: logger)
        case .sqlite(let file):
            path = file
        }
        if privileged && create && getuid() != 0 {
            throw Privilege.Refusal(description: "--init-store of the installed miadmin is for root (Scripts/install does it)")
        }
        // A -wal or -shm deleted by another program (sqlite3's .backup) comes back from root's spares.
        if privileged && !create { StoreCompanionFiles.repairVanished(path) }
        if privileged && !create, let problem = Privilege.storeFilesProblem(path) {
            throw Privilege.Refusal(description: problem)
        }
        let opening: FormStore.Opening = create ? .createIfMissingWithMode(0o660) : .existingOnly
        let store = try FormStore(path: path, busyTimeout: config.store.busyTimeoutSeconds,
                                  clock: clock, logger: logger, opening: opening)
        if privileged && create {
            // The writer made -wal and -shm; with persistent WAL they stay, root's.
            try Privilege.giveStoreFilesToRoot(path)
            try StoreCompanionFiles.makeSpares(path)
            if let problem = Privilege.storeFilesProblem(path) { throw Privilege.Refusal(description: problem) }
        }
        if privileged { try store.openAllConnections() }
        return store
    }

    /// `--atomic` (commit only if every command succeeded) and `--dry-run` (always roll back):
    /// the whole run inside one store transaction. Nil when the store could not be opened or
    /// locked (the error is printed).
    ///
    /// When nothing was saved, the output itself says so at its end (a closing line; in JSON an
    /// object with `"saved": false`), so `moved true` above it is never read as done; stderr
    /// says it too.
    static func runInSessionTransaction(_ options: LaunchOptions, session: Session, runner: CommandRunner,
                                        _ run: () -> RunLoop.Outcome) -> RunLoop.Outcome? {
        let err = runner.err
        var outcome: RunLoop.Outcome = .finished(failures: 0)
        do {
            let store = try session.store()
            try store.withSessionTransaction(end: options.dryRun ? .rollback : .commit) {
                outcome = run()
                if options.atomic, outcome != .finished(failures: 0), outcome != .quit(failures: 0) { throw AbortAtomicRun() }
            }
            if options.dryRun {
                runner.sink.closing(saved: false, "dry run: nothing was saved")
                err.write("dry run: nothing was saved\n")
            }
        } catch is AbortAtomicRun {
            runner.sink.closing(saved: false, "atomic run: a command failed, so nothing was saved")
            err.write("atomic run: a command failed, so nothing was saved\n")
        } catch {
            err.write("miadmin: " + TerminalText.escape(ErrorReport.message(for: error), keepNewlines: false) + "\n")
            return nil
        }
        return outcome
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
            let store = try session.store()
            let notices = try store.notices(for: session.user.uid, unreadOnly: true)
            guard !notices.isEmpty else { return }
            err.write("You have \(notices.count) unread notice\(notices.count == 1 ? "" : "s"):\n")
            for notice in notices {
                err.write("  \(TimeText(zone: session.display.timeZone).table(notice.created))  " + TerminalText.escape(notice.text, keepNewlines: false) + "\n")
            }
            _ = try store.markRead(ids: notices.map(\.id), actor: session.user.uid)
        } catch {
            err.write("miadmin: could not read your notices: "
                      + TerminalText.escape(ErrorReport.message(for: error), keepNewlines: false) + "\n")
        }
    }

    /// The system clock, or the fixed instant in `$MIADMIN_NOW` (ISO 8601) — a hook for tests
    /// of expiry and reminders, so they never sleep.
    static func clock(_ environment: [String: String]) throws -> any StoreClock {
        guard let fixed = environment["MIADMIN_NOW"], !fixed.isEmpty else { return SystemClock() }
        guard let date = ISO8601DateFormatter().date(from: fixed) else {
            throw CommandError.failed("MIADMIN_NOW must be an ISO 8601 time such as 2026-11-21T09:00:00Z")
        }
        return FixedClock(date)
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
    static func prompt(for session: Session, environment: [String: String]) throws -> ReadlineSource {
        let role = session.user.roles.first?.rawValue ?? "?"
        var sources = CompletionEngine.Sources()
        // User ids complete only for the roles that may list users: Tab must not list the
        // directory to someone `users` refuses. One prefix search per Tab (capped), never the
        // whole directory.
        let mayListUsers = (try? session.require(UsersCommand.roles, for: "users")) != nil
        sources.userIDs = { prefix, techniciansOnly in
            guard mayListUsers else { return [] }
            return (try? session.directory.userIDs(prefix: prefix, role: techniciansOnly ? .technician : nil)) ?? []
        }
        sources.formReferences = { prefix, trashed in
            do {
                return try session.store().formReferenceSuggestions(prefix: prefix, owner: session.visibleOwner(),
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
    /// (2 when what stopped it was an unreachable directory or store).
    static func status(of outcome: RunLoop.Outcome, commandLine: Bool) -> ExitStatus {
        switch outcome {
        case .quit(failures: 0), .finished(failures: 0): return .success
        case .quit, .finished: return .scriptStopped
        case .stopped(let status):
            if status == .unreachable || commandLine { return status }
            return .scriptStopped
        }
    }

    /// Logs go to stderr; `MIADMIN_LOG_LEVEL` (trace … critical) sets the level, default warning.
    static func makeLogger(_ environment: [String: String]) -> Logger {
        var logger = Logger(label: "miadmin") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = environment["MIADMIN_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }
}
