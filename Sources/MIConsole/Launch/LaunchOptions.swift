/// What the `miadmin` command line asked for (parsed by the executable's root command).
public struct LaunchOptions: Sendable {
    public var configPath: String?
    public var user: String?
    public var passwordFile: String?
    public var commands: [String] = []
    public var scriptFile: String?
    public var format: OutputFormat = .table
    public var continueOnError = false

    public init() {}
}
