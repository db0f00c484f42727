import ArgumentParser
import MIDirectory

/// `set [SETTING VALUE]`: how results are shown for the rest of the session (psql's `\pset`
/// and `\x`, sqlite3's `.mode`). Without arguments, lists the settings.
public struct SetCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Show or change display settings for this session: format, expanded, pager.",
        discussion: """
            format table|csv|json    how results are written (as --format)
            expanded on|off          one record per block instead of a grid (as --expanded)
            pager on|off             long output at a terminal through $PAGER (default less -FRX)

            A single command can also take --expanded (-x) or --no-pager.

            Examples:
              set
              set format csv
              set expanded on
              set pager off
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    public enum Setting: String, CaseIterable, ExpressibleByArgument { case format, expanded, pager }

    @Argument(help: "The setting to change (format, expanded, pager).")
    public var setting: Setting?
    @Argument(help: ArgumentHelp("Its new value: table, csv or json for format; on or off for the others.", valueName: "value"))
    public var value: String?

    public init() {}

    public func validate() throws {
        guard let setting else { return }
        guard let value else { throw ValidationError("'set \(setting.rawValue)' needs a value") }
        switch setting {
        case .format:
            guard DisplayFormat(rawValue: value) != nil else {
                throw ValidationError("format is table, csv or json, not '\(value)'")
            }
        case .expanded, .pager:
            guard Self.flag(value) != nil else { throw ValidationError("\(setting.rawValue) is on or off, not '\(value)'") }
        }
    }

    static func flag(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: return nil
        }
    }

    public func run(in session: Session, output: OutputSink) throws {
        if let setting, let value {
            switch setting {
            case .format: session.display.format = DisplayFormat(rawValue: value)!
            case .expanded: session.display.expanded = Self.flag(value)!
            case .pager: session.display.pager = Self.flag(value)!
            }
        }
        let display = session.display
        output.record([Column("format"), Column("expanded"), Column("pager"), Column("timeZone")],
                      [.string(display.format.rawValue), .string(display.expanded ? "on" : "off"),
                       .string(display.pager ? "on" : "off"), .string(display.timeZone.identifier)])
    }
}
