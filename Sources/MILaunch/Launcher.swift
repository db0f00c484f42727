import Foundation
import Logging
import MICommands
import MIConsole
import MIDirectory
import MIStore

/// How a console process starts: what it opens (the config, the store, the directory,
/// readline), when (ahead of time, on helper threads, while it waits on something else), and
/// with what rights (the privilege drop, the environment scrub). It ends by handing the console
/// a ``Session`` whose directory and store are open, or being opened.
///
/// The order, for a privileged (setgid) run: harden, refuse what the user chose, scrub the
/// environment, read the system config, open the store with the group's rights (unless it takes
/// the user's Kerberos ticket: then after the drop), give the group up for good; then, as for
/// any run: read the password, log in (the directory connection
/// opened ahead by ``EarlyDirectoryConnection`` when the guess was right), while the store
/// (``EarlyStoreOpening``) and readline are set up on threads of their own when the console
/// will prompt.
public enum Launcher {
    public static func launch(_ options: LaunchOptions) -> ExitStatus {
        let out = OutputStream(fd: 1)
        let err = OutputStream(fd: 2)
        defer { out.flush(); err.flush() }
        func fail(_ error: Error) -> ExitStatus {
            out.flush()
            err.write(ErrorStyle.current.error("miadmin:") + " " + TerminalText.escape(ErrorReport.message(for: error), keepNewlines: false) + "\n")
            return ErrorReport.status(for: error)
        }
        func warn(_ text: String) {
            err.write("miadmin: " + ErrorStyle.current.warning("warning:") + " \(text)\n")
        }

        // A privileged run (the installed setgid binary) opens what the group protects, then
        // gives the group up for good before anything the user names is touched.
        let privileged = Privilege.isPrivileged
        var environment = ProcessInfo.processInfo.environment
        if privileged {
            Privilege.harden()
            if let refusal = Privilege.refusal(configPath: options.configPath, environment: environment) {
                err.write("miadmin: \(refusal)\n")
                return .failure
            }
            Privilege.scrubEnvironment()
            environment = Privilege.scrubbed(environment)
            // libldap's defaults are taken now, with no HOME (scrubbed until the drop) and
            // from `/`, so no ldaprc of the user's reaches the binds after the drop.
            Directory.readLibraryDefaultsWhilePrivileged()
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
                warn(warning)
            }
            if privileged || options.initStore {
                openedStore = try PrivilegedStore.open(config, privileged: privileged, create: options.initStore,
                                                       logger: logger, clock: privileged ? SystemClock() : clock(environment))
            }
            if privileged { try Privilege.dropForGood() }
            // A store that takes the user's Kerberos ticket, left by PrivilegedStore until now.
            if options.initStore && openedStore == nil {
                openedStore = try config.openStore(privileged: privileged, clock: SystemClock(), logger: logger)
            }
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
        // What the check prints (the service account's DN, the role groups' sizes, the crews and
        // locked accounts) is for those who run the site: from the installed binary, root, or
        // after a login of support staff or a site lead (below).
        let checkNeedsLogin = options.checkConfig && privileged && getuid() != 0
        if options.checkConfig && !checkNeedsLogin {
            return checkDirectory(directorySettings, logger: logger, out: out, fail: fail)
        }
        let willPrompt = options.run.prompts(stdinIsTerminal: isatty(0) == 1)

        let requestedUser = (options.user ?? environment["MIADMIN_USER"]).flatMap { $0.isEmpty ? nil : $0 }
        let hasPasswordSource = options.passwordFile != nil || getenv("MIADMIN_PASSWORD") != nil
        let interactive = isatty(0) == 1
        // The installed binary reads the invoking user's own default cache only (docs/security.md).
        if privileged, directorySettings.kerberos?.login == true { Kerberos.pinOwnCache() }
        let login = TicketLogin.decide(directorySettings.kerberos, user: requestedUser, hasPasswordSource: hasPasswordSource)
        var ticketPrincipal: KerberosPrincipal?
        if case .ticket(let principal) = login { ticketPrincipal = principal }
        // Without a ticket, a script has no one to ask for a password: say what is missing
        // rather than try an empty one. At a terminal the password is asked as without Kerberos.
        if case .noTicket(let why) = login, !interactive || requestedUser == nil {
            err.write("miadmin: \(TerminalText.escape(TicketLogin.message(why), keepNewlines: false))\n")
            return .authenticationFailed
        }
        if checkNeedsLogin && requestedUser == nil && ticketPrincipal == nil {
            err.write("miadmin: \(ConfigCheckAccess.loginNeeded): pass --user UID\n")
            return .authenticationFailed
        }
        guard let uid = requestedUser ?? ticketPrincipal?.name else {
            err.write("miadmin: no user: pass --user UID or set MIADMIN_USER\n")
            return .failure
        }
        let session: Session
        do {
            // A password typed at the terminal takes seconds: the connection opened meanwhile
            // could have been closed as idle by then, so it is not used after a typed one.
            let typesPassword = ticketPrincipal == nil && !hasPasswordSource
            var password = ticketPrincipal != nil ? [] : try PasswordSource.read(passwordFile: options.passwordFile, user: uid,
                                                                                   interactive: interactive) { warning in
                warn(warning)
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
            let storeClock = try privileged ? SystemClock() : clock(environment)
            // An installed run gets here without a store only when it takes the user's Kerberos
            // ticket (PrivilegedStore): opened now, with the user's rights, and still ignoring
            // the user's libpq files and variables (`privileged`).
            var storeOpening = willPrompt && openedStore == nil
                ? EarlyStoreOpening(config, privileged: privileged, clock: storeClock, logger: logger) : nil
            if willPrompt { HelperThread.start(yielding: true) { _ = try? ReadlineSource.prepareOnce() } }
            var authenticated = Result {
                if let ticketPrincipal { return try directory.authenticate(ticket: ticketPrincipal) }
                return try directory.authenticate(uid: uid, password: password)
            }
            SecretFile.wipe(&password)
            // A password typed at the terminal gets three tries, as sudo gives: a typo does not
            // end the session being started. A password from a file or the environment gets one.
            var tries = 1
            while typesPassword && interactive && tries < Self.passwordTries,
                  case .failure(let error as DirectoryError) = authenticated, error.kind == .authenticationFailed {
                err.write("miadmin: \(TerminalText.escape(error.message, keepNewlines: false)); try again\n")
                err.flush()
                password = try PasswordSource.read(passwordFile: nil, user: uid, interactive: true) { _ in }
                authenticated = Result { try directory.authenticate(uid: uid, password: password) }
                SecretFile.wipe(&password)
                tries += 1
            }
            let user = try authenticated.get()
            if let warning = directory.loginWarning { warn(warning.message) }
            if checkNeedsLogin {
                if let refusal = try ConfigCheckAccess.refusal(for: user, directory: directory) {
                    err.write("miadmin: \(refusal)\n")
                    return .authenticationFailed
                }
                return checkDirectory(directorySettings, logger: logger, out: out, fail: fail)
            }
            session = Session(config: config, user: user, directory: directory, logger: logger, clock: storeClock) {
                if let openedStore { return openedStore }
                // An early opening is waited for once; after its failure the next command opens anew.
                if let opening = storeOpening {
                    storeOpening = nil
                    return try opening.wait()
                }
                return try config.openStore(privileged: privileged, clock: storeClock, logger: logger)
            }
            session.assumeYes = options.assumeYes
            session.loginMethod = ticketPrincipal == nil ? .password : .kerberos
            session.display.format = options.format
            session.display.csvRaw = options.csvRaw
            // psql's `\x auto` at a terminal: a listing too wide for the screen is drawn as
            // blocks. Output that is not a terminal keeps its grids (auto would draw them anyway)
            // and `set` there still says `off`, as scripts have always read it.
            session.display.expanded = options.expanded ? .on : (isatty(1) == 1 ? .auto : .off)
            session.display.pager = !options.noPager
            session.display.timeZone = config.display.timeZone
        } catch let error as PasswordSource.Failure {
            err.write("miadmin: \(error.description)\n")
            return .failure
        } catch {
            return fail(error)
        }
        return Console.run(options.run, session: session, environment: environment, out: out, err: err)
    }

    /// `--check-config`: one line per check (`ok`, `warning`, `problem`); exit 1 when any check
    /// found a problem, 2 when the directory or its service account cannot be reached.
    static func checkDirectory(_ settings: DirectorySettings, logger: Logger, out: MIConsole.OutputStream,
                               fail: (Error) -> ExitStatus) -> ExitStatus {
        let items: [DirectoryCheckItem]
        do {
            items = try Directory(settings: settings, logger: logger).checkConfiguration()
        } catch {
            return fail(error)
        }
        let width = items.map(\.subject.count).max() ?? 0
        for item in items {
            let subject = item.subject.padding(toLength: width, withPad: " ", startingAt: 0)
            let verdict = item.verdict.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
            out.write("\(verdict) \(subject)  " + TerminalText.escape(item.detail, keepNewlines: false) + "\n")
        }
        return items.contains { $0.verdict == .problem } ? .failure : .success
    }

    /// How many passwords typed at the terminal one login accepts before it gives up (sudo's 3).
    static let passwordTries = 3

    /// The system clock, or the fixed instant in `$MIADMIN_NOW` (ISO 8601) — a hook for tests
    /// of expiry and reminders, so they never sleep. Refused for a privileged run.
    static func clock(_ environment: [String: String]) throws -> any StoreClock {
        guard let fixed = environment["MIADMIN_NOW"], !fixed.isEmpty else { return SystemClock() }
        guard let date = ISO8601DateFormatter().date(from: fixed) else {
            throw CommandError.failed("MIADMIN_NOW must be an ISO 8601 time such as 2026-11-21T09:00:00Z")
        }
        return FixedClock(date)
    }

    /// Logs go to stderr; `MIADMIN_LOG_LEVEL` (trace … critical) sets the level, default warning.
    static func makeLogger(_ environment: [String: String]) -> Logger {
        var logger = Logger(label: "miadmin") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = environment["MIADMIN_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }
}
