/// What the `miadmin` command line asked for (parsed by the executable's root command).
public struct LaunchOptions: Sendable {
    public var configPath: String?
    public var user: String?
    public var passwordFile: String?
    public var commands: [String] = []
    public var scriptFile: String?
    public var format: OutputFormat = .table
    /// `--csv-raw`: CSV cells exactly as stored, without formula neutralisation.
    public var csvRaw = false
    public var continueOnError = false
    /// `--yes`: destructive commands do not ask.
    public var assumeYes = false
    /// `--atomic`: the whole script in one store transaction, all or nothing.
    public var atomic = false
    /// `--dry-run`: run everything, print what would change, save nothing.
    public var dryRun = false
    /// `--expanded`: one record per block instead of a grid.
    public var expanded = false
    /// `--no-pager`: never page output, even at a terminal.
    public var noPager = false
    /// `--init-store`: create the store the config names if missing (schema only), then exit.
    public var initStore = false
    /// The directory connection started before the command line was parsed, if any.
    public var earlyConnection: EarlyDirectoryConnection?

    public init() {}
}
