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
            Oldest first. --since and --until take a time as every time option does: \
            2026-11-23T12:00 or '2026-11-23 12:00' or 2026-11-23 (in display.timeZone), 12:00 \
            (today), today, yesterday, -2h, -3d, or ISO 8601 with its offset. --command takes \
            operation names, comma-separated; a family (import) takes its members. --form follows one \
            form by its id through renames, moves and the trash: 'jdoe/Pump station 4' finds the \
            form that had that name, then lists all its rows. In JSON, before and after are objects.

            Examples:
              audit --last 20
              audit --since today --command move
              audit --since '2026-11-23T12:00' --until 14:00 --command move,expire
              audit --since 7d --user lchen
              audit --form 'jdoe/Pump station 4'
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(parsing: .unconditional, help: ArgumentHelp("Only changes at or after this time (2026-11-23T12:00, 12:00, today, -2h, ...).", valueName: "when"),
            transform: TimeArgument.init(parsing:))
    public var since: TimeArgument?
    @Option(parsing: .unconditional, help: ArgumentHelp("Only changes before this time (the same forms as --since).", valueName: "when"),
            transform: TimeArgument.init(parsing:))
    public var until: TimeArgument?
    @Option(help: ArgumentHelp("Only changes made by this user.", valueName: "uid"))
    public var user: String?
    @Option(help: ArgumentHelp("Only changes to this form (id or owner/name, followed by id).", valueName: "form"))
    public var form: FormReference?
    @Option(help: ArgumentHelp("Only these operations, comma-separated: move, submit, reopen, import, expire, restore, purge, ...",
                               valueName: "names"), transform: AuditCommandList.init(parsing:))
    public var command: AuditCommandList?
    @Option(help: ArgumentHelp("Only the newest N changes.", valueName: "n"))
    public var last: Int?

    public init() {}

    public func validate() throws {
        if let last, last < 1 { throw ValidationError("--last takes a number of rows, 1 or more") }
    }

    public func run(in session: Session, output: OutputSink) throws {
        var filter = AuditFilter(actor: user, commands: command?.names ?? [], newest: last)
        let now = session.clock.now(), zone = session.display.timeZone
        filter.since = since?.date(now: now, zone: zone)
        filter.until = until?.date(now: now, zone: zone)
        filter.form = form
        // At a narrow terminal, who did what to which form stays; the images and the note go
        // (blocks and --wide show them) and the object is cut: one line a row.
        output.beginRows([Column("id"), Column("at"), Column("user"), Column("command"), Column("form"),
                          Column("object", fit: .cut), Column("before", fit: .leftOut), Column("after", fit: .leftOut),
                          Column("note", fit: .leftOut)])
        var found = 0
        try session.store().listing.forEachAuditEntry(filter) { entry in
            try session.checkpointRow()
            found += 1
            output.row([.int(entry.id), .time(entry.at), .string(entry.actor), .string(entry.command),
                        entry.formId.map(Value.int) ?? .null, .string(entry.object), Self.fields(entry.before),
                        Self.fields(entry.after), .optional(entry.note)])
        }
        output.endRows()
        try session.requireKnownUser(user, foundNothing: found == 0)
    }

    /// The JSON text of a before/after column as an object value (JSON output nests it). The
    /// store writes its times there in UTC (`trashedAt`, `modified`); they become times, which
    /// every output shows in `display.timeZone` with the offset, as the `at` column.
    static func fields(_ text: String?) -> Value {
        guard let text else { return .null }
        guard let json = try? JSONValue.parse(Data(text.utf8)) else { return .string(text) }
        return withTimes(Value(json: json))
    }

    private static func withTimes(_ value: Value) -> Value {
        switch value {
        case .string(let text):
            guard text.count >= 20, text.first?.isNumber == true, let time = try? TimeArgument(parsing: text),
                  case .instant(let date) = time.shape else { return value }
            return .time(date)
        case .list(let items): return .list(items.map(withTimes))
        case .object(let fields): return .object(fields.map { Value.Field($0.key, withTimes($0.value)) })
        default: return value
        }
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

/// `audit --command move,expire`: the operations the store writes audit rows for, or their
/// families (`import`); a name that could match no row is refused with the list.
public struct AuditCommandList: Sendable, Hashable {
    public let names: [String]

    public struct Unknown: Error, CustomStringConvertible {
        public let name: String
        public var description: String {
            var text = "no operation '\(name)' is audited"
            if let guess = Spelling.closest(to: name, among: AuditFilter.commandNames) { text += " (did you mean '\(guess)'?)" }
            return text + "; known: " + AuditFilter.commandNames.joined(separator: ", ")
        }
    }

    public init(parsing text: String) throws {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for name in names where !AuditFilter.isKnownCommand(name) { throw Unknown(name: name) }
        self.names = names
    }
}
