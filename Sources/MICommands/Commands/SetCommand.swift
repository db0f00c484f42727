import ArgumentParser
import Foundation
import MIDirectory

/// `set [SETTING VALUE]`: how results are shown for the rest of the session (psql's `\pset`
/// and `\x`, sqlite3's `.mode`). Without arguments, lists the settings.
public struct SetCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Show or change display settings for this session: format, expanded, pager, time zone.",
        discussion: """
            format table|csv|json    how results are written (as --format)
            expanded on|off|auto     one record per block instead of a grid (as --expanded); \
            auto: only when the grid would be wider than the terminal (psql's \\x auto)
            pager on|off             long output at a terminal through $PAGER (default less -FRX)
            timeZone ZONE            the zone times are shown in, an IANA name such as Europe/Berlin \
            (as display.timeZone in the config)

            A change is confirmed on stderr ('note: format is table'), not in the format being left.

            A single command can also take --expanded (-x) or --no-pager. At the prompt, \\x \
            toggles expanded display between on and off and \\x on|off|auto sets it, as in psql.

            Examples:
              set
              set format csv
              set expanded on
              set expanded auto
              set pager off
              set timeZone UTC
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    public enum Setting: String, CaseIterable, ExpressibleByArgument { case format, expanded, pager, timeZone }

    @Argument(help: "The setting to change (format, expanded, pager, timeZone).")
    public var setting: Setting?
    @Argument(help: ArgumentHelp("Its new value: table, csv or json for format; on, off or auto for expanded; on or off for pager.", valueName: "value"))
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
        case .expanded:
            guard Self.expanded(value) != nil else { throw ValidationError("expanded is on, off or auto, not '\(value)'") }
        case .pager:
            guard Self.flag(value) != nil else { throw ValidationError("\(setting.rawValue) is on or off, not '\(value)'") }
        case .timeZone:
            guard TimeZone(identifier: value) != nil else {
                throw ValidationError("timeZone is an IANA time zone name such as Europe/Berlin or UTC, not '\(value)'")
            }
        }
    }

    static func flag(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "on", "true", "yes", "1": return true
        case "off", "false", "no", "0": return false
        default: return nil
        }
    }

    static func expanded(_ text: String) -> ExpandedDisplay? {
        if text.lowercased() == "auto" { return .auto }
        return flag(text).map { $0 ? .on : .off }
    }

    public func run(in session: Session, output: OutputSink) throws {
        if let setting, let value {
            switch setting {
            case .format: session.display.format = DisplayFormat(rawValue: value)!
            case .expanded: session.display.expanded = Self.expanded(value)!
            case .pager: session.display.pager = Self.flag(value)!
            case .timeZone: session.display.timeZone = TimeZone(identifier: value)!
            }
            // Said on stderr in plain words: this command's output would still be in the old
            // format (`set format table` once echoed the settings as JSON).
            let now = switch setting {
            case .format: session.display.format.rawValue
            case .expanded: session.display.expanded.rawValue
            case .pager: session.display.pager ? "on" : "off"
            case .timeZone: session.display.timeZone.identifier
            }
            output.note("\(setting.rawValue) is \(now)")
            return
        }
        let display = session.display
        output.record([Column("format"), Column("expanded"), Column("pager"), Column("timeZone")],
                      [.string(display.format.rawValue), .string(display.expanded.rawValue),
                       .string(display.pager ? "on" : "off"), .string(display.timeZone.identifier)])
    }
}
