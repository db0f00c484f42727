import Foundation
import Logging
import MICommands
import MIDirectory

/// The directory connection started at the very start of the process, on a thread of its own:
/// the config read, then TCP, StartTLS, the TLS handshake and the service account's bind (about
/// 6 ms on this machine), while
/// the main thread parses the command line (about 3 ms: argument-parser's reflection) and sets
/// the session up. The login then goes on over this connection instead of opening its own.
///
/// It is a guess at the config the command line names, made before the command line is
/// parsed: `--config FILE` or `--config=FILE` if the arguments hold one, else the usual places
/// (``AppConfig/resolvePath(explicit:environment:systemPath:)``). Once the command line is
/// parsed, the console uses the connection, and the config read with it, only when the parsed
/// command line names the same file (``config(ifLoadedFrom:)``); otherwise both are dropped
/// unused and the console connects as it would have. Nothing is reported from here: a config
/// the thread could not read is read again, and its error reported, by the console; a
/// connection that failed fails the login with the same error it would have had.
///
/// Not used after a password typed at the terminal (the connection may have been closed as
/// idle meanwhile; the typing takes longer than connecting anyway).
///
/// Not started for a privileged (setgid) run: libldap reads the user's `~/.ldaprc` when first
/// used, which must not happen with the store group's rights; such a run connects after it
/// gave the group up, as before. For runs that do not log in (help, version, completion scripts,
/// `--init-store`), the thread stops once it has read the command line.
public final class EarlyDirectoryConnection: @unchecked Sendable {
    // Each written once by the thread before its semaphore is signalled; read after waiting.
    /// The config file the guess was made for (nil: the run was guessed not to log in).
    private var configPath: String?
    private var config: Result<AppConfig, Error>?
    private var connection: Result<LDAPConnection, Error>?
    private let configRead = DispatchSemaphore(value: 0)
    private let connected = DispatchSemaphore(value: 0)

    /// Starts the guess for this process, or nil when it gets none (a privileged run, above).
    ///
    /// The thread starts first thing and reads the command line and the environment itself:
    /// Foundation's environment dictionary (`ProcessInfo.environment`, every variable, with the
    /// Swift runtime's first generic type look-ups) and the command line's conversion took
    /// 0.7 ms of the main thread before the thread could start (docs/benchmarks.md).
    /// `arguments` gives the command line without the program name (called on the thread).
    public static func start(arguments: @escaping @Sendable () -> [String] = { Array(CommandLine.arguments.dropFirst()) })
        -> EarlyDirectoryConnection? {
        guard !Privilege.isPrivileged else { return nil }
        let early = EarlyDirectoryConnection()
        HelperThread.start(yielding: false) {
            let arguments = arguments()
            guard logsIn(arguments) else {
                early.configRead.signal()
                early.connected.signal()
                return
            }
            let environment = guessEnvironment()
            let path = AppConfig.resolvePath(explicit: configArgument(arguments), environment: environment,
                                             systemPath: InstallLayout.systemConfigPath(executable: InstallLayout.executable))
            early.open(configPath: path, logger: Console.makeLogger(environment))
        }
        return early
    }

    private init() {}

    /// Reads the config at `configPath`, then connects and binds as the service account (on the
    /// calling thread, the guess's own).
    private func open(configPath: String, logger: Logger) {
        self.configPath = configPath
        let loaded = Result { try AppConfig.load(path: configPath) }
        config = loaded
        configRead.signal()
        connection = loaded.flatMap { config in
            Result {
                // The console reads the password file again, and says what is wrong with it.
                var settings = try config.directorySettings()
                defer { if settings.bindPassword != nil { SecretBytes.wipe(&settings.bindPassword!) } }
                return try Directory.openConnection(settings, logger: logger)
            }
        }
        connected.signal()
    }

    /// The variables the guess reads (the config's place, the log level), from the C
    /// environment: all the guess needs, without building Foundation's dictionary of them all.
    static func guessEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["MIADMIN_CONFIG", "HOME", "XDG_CONFIG_HOME", "MIADMIN_LOG_LEVEL"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// The config the thread read, when `path` is the file it guessed and reading it worked;
    /// nil otherwise (the console reads the file itself). Waits for the read.
    func config(ifLoadedFrom path: String) -> AppConfig? {
        configRead.wait()
        configRead.signal()  // a second wait returns at once
        guard path == configPath else { return nil }
        return try? config?.get()
    }

    /// The connection, for a session on `settings` (those of the config the thread read), or
    /// the error opening it threw. Waits for the thread. Nil when the thread's config was not
    /// read or names another directory or service account.
    func connection(for settings: DirectorySettings) -> (() throws -> LDAPConnection)? {
        configRead.wait()
        configRead.signal()
        guard let read = try? config?.get(), read.connectionSettings == settings.connection,
              read.ldap.bindDN == settings.bindDN else { return nil }
        return { [self] in
            connected.wait()
            connected.signal()
            return try connection!.get()
        }
    }

    /// The value of `--config` in `arguments`, read as argument-parser reads it (a separate
    /// value or `=`), up to a `--` that ends the options; nil when there is none. Only a guess:
    /// the parsed command line decides.
    static func configArgument(_ arguments: [String]) -> String? {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" { return nil }
            if argument == "--config" {
                return index + 1 < arguments.endIndex ? arguments[index + 1] : nil
            }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
            // The value of an option that takes one is not an option, even if it looks like one.
            if Self.optionsWithValue.contains(argument) { index += 1 }
            index += 1
        }
        return nil
    }

    /// miadmin's options that take a value as the next argument.
    static let optionsWithValue: Set<String> = ["--user", "--password-file", "-c", "-f", "--format", "--on-error"]

    /// Whether a run with these arguments logs in (not help, version, a completion script or
    /// `--init-store`): a guess too, to spare the directory a connection nobody uses.
    static func logsIn(_ arguments: [String]) -> Bool {
        !arguments.contains { argument in
            ["-h", "--help", "--version", "--init-store", "--generate-manual"].contains(argument)
                || argument.hasPrefix("--generate-completion-script") || argument.hasPrefix("--experimental")
        }
    }
}
