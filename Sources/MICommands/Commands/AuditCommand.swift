import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `audit`: every change to the store — who, when, what, before and after, and why.
public struct AuditCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "List the audit trail of changes.",
        discussion: """
            Oldest first. --since takes today, yesterday, a span back from now (30m, 1h, 7d) or a \
            date (YYYY-MM-DD, midnight in display.timeZone) or ISO 8601 time. --form follows one \
            form by its id through renames, moves and the trash: 'jdoe/Pump station 4' finds the \
            form that had that name, then lists all its rows. In JSON, before and after are objects.

            Examples:
              audit --last 20
              audit --since today --command move
              audit --since 7d --user lchen
              audit --form 'jdoe/Pump station 4'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(help: ArgumentHelp("Only changes since: today, yesterday, 30m, 1h, 7d, YYYY-MM-DD or an ISO 8601 time.", valueName: "when"))
    public var since: SinceArgument?
    @Option(help: ArgumentHelp("Only changes made by this user.", valueName: "uid"))
    public var user: String?
    @Option(help: ArgumentHelp("Only changes to this form (id or owner/name, followed by id).", valueName: "form"))
    public var form: FormReference?
    @Option(help: ArgumentHelp("Only this operation: move, submit, reopen, import, expire, restore, purge, ...", valueName: "name"))
    public var command: String?
    @Option(help: ArgumentHelp("Only the newest N changes.", valueName: "n"))
    public var last: Int?

    public init() {}

    public func validate() throws {
        if let last, last < 1 { throw ValidationError("--last takes a number of rows, 1 or more") }
    }

    public func run(in session: Session, output: OutputSink) throws {
        var filter = AuditFilter(actor: user, command: command, newest: last)
        filter.since = since?.date(now: session.clock.now(), zone: session.display.timeZone)
        filter.form = form
        output.beginRows([Column("id"), Column("at"), Column("user"), Column("command"), Column("form"),
                          Column("object"), Column("before"), Column("after"), Column("note")])
        try session.store().forEachAuditEntry(filter) { entry in
            try session.checkpointRow()
            output.row([.int(entry.id), .time(entry.at), .string(entry.actor), .string(entry.command),
                        entry.formId.map(Value.int) ?? .null, .string(entry.object), Self.fields(entry.before),
                        Self.fields(entry.after), .optional(entry.note)])
        }
        output.endRows()
    }

    /// The JSON text of a before/after column as an object value (JSON output nests it).
    static func fields(_ text: String?) -> Value {
        guard let text else { return .null }
        guard let json = try? JSONValue.parse(Data(text.utf8)) else { return .string(text) }
        return Value(json: json)
    }
}

extension Value {
    /// A JSON value from the store as output data.
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let literal):
            if let int = Int64(literal) { self = .int(int) } else { self = Double(literal).map(Value.double) ?? .string(literal) }
        case .string(let text): self = .string(text)
        case .array(let items): self = .list(items.map(Value.init(json:)))
        case .object(let object): self = .object(object.entries.map { Field($0.key, Value(json: $0.value)) })
        }
    }
}

/// Dates typed on the command line.
public enum DateArgument {
    /// `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 time.
    public static func parse(_ text: String) -> Date? { parse(text, zone: TimeZone(identifier: "UTC")!) }

    /// `YYYY-MM-DD` (midnight in `zone`) or a full ISO 8601 time.
    public static func parse(_ text: String, zone: TimeZone) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        day.timeZone = zone
        return day.date(from: text)
    }

    /// A start time as people say it: `today` and `yesterday` (midnight in `zone`), a span back
    /// from `now` (`30m`, `1h`, `7d`, `2w`), or what ``parse(_:zone:)`` reads.
    public static func since(_ text: String, now: Date, zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        switch text.lowercased() {
        case "today": return calendar.startOfDay(for: now)
        case "yesterday": return calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: now))
        default: break
        }
        if let unit = text.last, let count = Int(text.dropLast()), count >= 0 {
            let seconds: Double? = switch unit {
            case "m": 60
            case "h": 3_600
            case "d": 86_400
            case "w": 7 * 86_400
            default: nil
            }
            if let seconds { return now.addingTimeInterval(-Double(count) * seconds) }
        }
        return parse(text, zone: zone)
    }
}
