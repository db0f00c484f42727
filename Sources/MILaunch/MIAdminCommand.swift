import ArgumentParser
import Foundation
import MICommands
import MIConsole

/// The `miadmin` command line: the one parser of it. ``Launcher`` opens what the run needs and
/// logs in; everything after login happens in MIConsole.
public struct MIAdminCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "miadmin",
        abstract: "Console for foremen and support staff over the shared MI form store.",
        discussion: """
            Logs in to the LDAP directory, then runs commands from -c, a script file (-f), \
            a pipe, or an interactive prompt. The password comes from $MIADMIN_PASSWORD, \
            --password-file, or a prompt on the terminal (three tries); never from a flag value.

            The installed miadmin (setgid to the store's group, docs/security.md) reads only \
            the system config: --config, $MIADMIN_CONFIG, $MIADMIN_NOW and LDAP* variables are \
            refused (exit 1), and files you name are opened with your own rights.

            Before the first command of every run (the prompt, -c, -f, a pipe) miadmin reads \
            your rc file, ~/.miadminrc, else $XDG_CONFIG_HOME/miadmin/rc (default \
            ~/.config/miadmin/rc), as psql reads ~/.psqlrc: backslash commands and 'set' \
            lines such as \\x auto, \\timing on, \\set crew Nord. -X skips it; one that is \
            not yours or that others can write is not read (a warning says so). At a terminal \
            listings fit its width (expanded auto) and errors are in colour, unless NO_COLOR \
            is set or TERM is dumb.

            Exit codes: 0 success; 1 usage error or failed command; 2 directory or store \
            unreachable (including TLS failures); 3 a script stopped at a failing command; \
            4 authentication failed; 5 deliver newly held deliveries (the office refused a form \
            or its tries ran out: 'deliveries retry' once fixed); 130 a script interrupted by \
            Ctrl-C (129 by SIGHUP, 143 by SIGTERM).
            """,
        version: "miadmin \(MIAdminVersion.current)")

    @Option(name: .long, help: ArgumentHelp("Config file (else $MIADMIN_CONFIG, else ~/.config/miadmin/config.json, else /etc/miadmin/config.json). Refused by the installed (setgid) miadmin.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Directory user id to log in as (else $MIADMIN_USER).", valueName: "uid"))
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Read the password from this file (first line).", valueName: "file"))
    var passwordFile: String?

    @Option(name: .customShort("c"), help: ArgumentHelp("Run this command and exit (repeatable; stops at the first failure).", valueName: "command"))
    var command: [String] = []

    @Option(name: .customShort("f"), help: ArgumentHelp("Run the commands in this script file.", valueName: "file"))
    var file: String?

    @Option(name: [.customShort("v"), .customLong("set")], help: ArgumentHelp("Set a script variable, used as :NAME in the commands (repeatable; as psql's -v).", valueName: "name=value"))
    var variables: [String] = []

    @Flag(name: [.customShort("q"), .long], help: "Results and errors only: no banner, row counts, notes or progress.")
    var quiet = false

    @Option(name: .long, help: "Output format: table, csv or json (several commands: one JSON array of their results).")
    var format: OutputFormat = .table

    @Flag(name: .customLong("json-lines"), help: "With --format json: each command's result as one JSON value on a line of its own, instead of one array for the whole script.")
    var jsonLines = false

    @Flag(name: .customLong("csv-raw"), help: "In CSV output (--format csv, set format csv), write cells that start with = + - @ (or tab or CR) as they are, instead of behind a ' that keeps spreadsheets from running them as formulas.")
    var csvRaw = false

    @Option(name: .long, help: ArgumentHelp("What a script does after a failing command: stop (default) or continue.", valueName: "stop|continue"))
    var onError: OnError = .stop

    @Flag(name: .long, help: "Answer yes to every confirmation (needed for destructive commands in scripts).")
    var yes = false

    @Flag(name: .long, help: "Run the whole script in one store transaction: all or nothing.")
    var atomic = false

    @Flag(name: .customLong("dry-run"), help: "Run the commands, print what would change, save nothing and write no file.")
    var dryRun = false

    @Flag(name: [.customShort("x"), .long], help: "Show each row as a block of 'column | value' lines instead of a grid.")
    var expanded = false

    @Flag(name: [.customShort("X"), .customLong("no-rc")], help: "Do not read the rc file (~/.miadminrc, else $XDG_CONFIG_HOME/miadmin/rc), as psql's -X skips ~/.psqlrc.")
    var noRC = false

    @Flag(name: .customLong("no-pager"), help: "Never page output through $PAGER (paging happens only at a terminal).")
    var noPager = false

    @Flag(name: .customLong("init-store"), help: "Create the store the config names if it is missing (schema only, mode 0660), then exit without logging in.")
    var initStore = false

    @Flag(name: .customLong("check-config"), help: "Bind as the config's service account and report what miadmin sees of the directory (role groups, crews, memberOf, indexes, account states), then exit. The installed binary runs it for root, and for support staff and site leads after their login.")
    var checkConfig = false

    @Flag(name: .customLong("generate-manual"), help: .hidden)
    var generateManual = false

    enum OnError: String, ExpressibleByArgument { case stop, `continue` }

    public init() {}

    /// Runs like ArgumentParser's own `main()`, except that usage errors exit 1 (our contract,
    /// docs/exit-codes.md) rather than sysexits' 64.
    public static func main() {
        HeapTuning.apply()
        // The directory connection starts now, on a thread of its own, while the command line is
        // parsed and the session set up: see EarlyDirectoryConnection.
        let early = EarlyDirectoryConnection.start()
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            if let console = command as? MIAdminCommand {
                try console.launch(earlyConnection: early)
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is ExitCode {
                exit(withError: error)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(ExitStatus.failure.rawValue)
        }
    }

    public func validate() throws {
        if !command.isEmpty && file != nil {
            throw ValidationError("use either -c or -f, not both")
        }
        if let refusal = variables.lazy.compactMap(Console.Run.variableRefusal).first {
            throw ValidationError(refusal)
        }
        if jsonLines && format != .json {
            throw ValidationError("--json-lines shapes JSON output: use it with --format json")
        }
    }

    public func run() throws {
        try launch(earlyConnection: nil)
    }

    private func launch(earlyConnection: EarlyDirectoryConnection?) throws {
        if generateManual {
            print(ManualPage.render(), terminator: "")
            return
        }
        var options = LaunchOptions()
        options.configPath = config
        options.user = user
        options.passwordFile = passwordFile
        options.run.commands = command
        options.run.scriptFile = file
        options.run.continueOnError = onError == .continue
        options.run.atomic = atomic
        options.run.dryRun = dryRun
        options.run.jsonLines = jsonLines
        options.run.variables = variables.compactMap(Console.Run.variable)
        options.run.quiet = quiet
        options.run.readsStartupFile = !noRC
        options.format = format
        options.csvRaw = csvRaw
        options.assumeYes = yes
        options.expanded = expanded
        options.noPager = noPager
        options.initStore = initStore
        options.checkConfig = checkConfig
        options.earlyConnection = earlyConnection
        let status = Launcher.launch(options)
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
