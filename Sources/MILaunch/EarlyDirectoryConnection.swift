import Foundation
import Logging
import MICommands
import MIDirectory

/// The directory connection started at the very start of the process, on a thread of its own:
/// the config read, then TCP, StartTLS, the TLS handshake and the service account's bind, while
/// the main thread parses the command line (argument-parser's reflection) and sets the session
/// up (the timeline: docs/benchmarks.md). The login then goes on over this connection instead of opening its own.
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
public final class EarlyDirectoryConnection: Sendable {
    /// The config file the guess was made for and what reading it gave (nil: the run was
    /// guessed not to log in).
    private let configRead = AheadOfTime<(path: String, config: Result<AppConfig, Error>)?>()
    /// The connection, or why it could not be opened (nil: no config, so no connection).
    private let connected = AheadOfTime<Result<LDAPConnection, Error>?>()

    /// Starts the guess for this process, or nil when it gets none (a privileged run, above).
    ///
    /// The thread starts first thing and reads the command line and the environment itself:
    /// Foundation's environment dictionary (`ProcessInfo.environment`, every variable, with the
    /// Swift runtime's first generic type look-ups) and the command line's conversion kept the
    /// main thread from starting it sooner (docs/benchmarks.md).
    /// `arguments` gives the command line without the program name (called on the thread).
    public static func start(arguments: @escaping @Sendable () -> [String] = { Array(CommandLine.arguments.dropFirst()) })
        -> EarlyDirectoryConnection? {
        guard !Privilege.isPrivileged else { return nil }
        let early = EarlyDirectoryConnection()
        HelperThread.start(yielding: false) {
            let arguments = arguments()
            guard logsIn(arguments) else {
                early.configRead.set(nil)
                early.connected.set(nil)
                return
            }
            let environment = guessEnvironment()
            let path = AppConfig.resolvePath(explicit: configArgument(arguments), environment: environment,
                                             systemPath: InstallLayout.systemConfigPath(executable: InstallLayout.executable))
            early.open(configPath: path, logger: Launcher.makeLogger(environment))
        }
        return early
    }

    private init() {}

    /// Reads the config at `configPath`, then connects and binds as the service account (on the
    /// calling thread, the guess's own).
    private func open(configPath: String, logger: Logger) {
        let loaded = Result { try AppConfig.load(path: configPath) }
        configRead.set((configPath, loaded))
        connected.set(loaded.flatMap { config in
            Result {
                // The console reads the password file again, and says what is wrong with it.
                var settings = try config.directorySettings()
                defer { if settings.bindPassword != nil { SecretBytes.wipe(&settings.bindPassword!) } }
                return try Directory.openConnection(settings, logger: logger)
            }
        })
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
        guard let read = configRead.wait(), read.path == path else { return nil }
        return try? read.config.get()
    }

    /// The connection, for a session on `settings` (those of the config the thread read), or
    /// the error opening it threw. Waits for the thread. Nil when the thread's config was not
    /// read or names another directory or service account.
    func connection(for settings: DirectorySettings) -> (() throws -> LDAPConnection)? {
        guard let read = try? configRead.wait()?.config.get(), read.connectionSettings == settings.connection,
              read.ldap.bindDN == settings.bindDN,
              read.ldap.kerberos?.serviceKeytab == settings.kerberos?.serviceKeytab,
              read.ldap.kerberos?.servicePrincipal == settings.kerberos?.servicePrincipal else { return nil }
        return { [connected] in try connected.wait()!.get() }
    }

    /// The value of `--config` in `arguments` (a separate value or `=`), up to a `--` that ends
    /// the options; nil when there is none.
    ///
    /// A guess, not a second parser: it knows nothing of the other options, so in a command
    /// line such as `-c --config` (a console command that is the word `--config`) it guesses
    /// wrong. That costs only the connection: the launch compares the guess with what the one
    /// parser, argument-parser's, made of the command line (``config(ifLoadedFrom:)``), and drops
    /// a guess that differs.
    static func configArgument(_ arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            if argument == "--config" { return index + 1 < arguments.endIndex ? arguments[index + 1] : nil }
            if argument.hasPrefix("--config=") { return String(argument.dropFirst("--config=".count)) }
        }
        return nil
    }

    /// Whether a run with these arguments logs in (not help, version, a completion script or
    /// `--init-store`): a guess too, to spare the directory a connection nobody uses; a wrong
    /// guess costs a connection, or the head start, never a wrong result.
    static func logsIn(_ arguments: [String]) -> Bool {
        !arguments.contains { argument in
            ["-h", "--help", "--version", "--init-store", "--generate-manual"].contains(argument)
                || argument.hasPrefix("--generate-completion-script") || argument.hasPrefix("--experimental")
        }
    }
}
