import MICommands
import MIConsole

/// What the `miadmin` command line asked for (parsed by ``MIAdminCommand``, the one parser).
public struct LaunchOptions: Sendable {
    public var configPath: String?
    public var user: String?
    public var passwordFile: String?
    /// What the console runs: `-c`, `-f`, `--on-error`, `--atomic`, `--dry-run`.
    public var run = Console.Run()
    public var format: OutputFormat = .table
    /// `--csv-raw`: CSV cells exactly as stored, without formula neutralisation.
    public var csvRaw = false
    /// `--yes`: destructive commands do not ask.
    public var assumeYes = false
    /// `--expanded`: one record per block instead of a grid.
    public var expanded = false
    /// `--no-pager`: never page output, even at a terminal.
    public var noPager = false
    /// `--init-store`: create the store the config names if missing (schema only), then exit.
    public var initStore = false
    /// `--check-config`: bind as the service account and report what miadmin sees of the directory.
    public var checkConfig = false
    /// The directory connection started before the command line was parsed, if any.
    public var earlyConnection: EarlyDirectoryConnection?

    public init() {}
}
