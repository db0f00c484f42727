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
            Examples:
              audit --since 2026-11-01
              audit --user mkhan --form 12
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(help: ArgumentHelp("Only changes at or after this date (YYYY-MM-DD, UTC) or ISO 8601 time.", valueName: "date"))
    public var since: String?
    @Option(help: ArgumentHelp("Only changes made by this user.", valueName: "uid"))
    public var user: String?
    @Option(help: ArgumentHelp("Only changes to this form (id or owner/name).", valueName: "form"))
    public var form: String?

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        var filter = AuditFilter(actor: user)
        if let since {
            guard let date = DateArgument.parse(since) else {
                throw CommandError.failed("--since: '\(since)' is not a date (YYYY-MM-DD) or ISO 8601 time")
            }
            filter.since = date
        }
        if let form {
            do { filter.form = try FormReference(parsing: form) } catch { throw CommandError.failed(error.description) }
        }
        output.beginRows([Column("id"), Column("at"), Column("user"), Column("command"), Column("form"),
                          Column("object"), Column("before"), Column("after"), Column("note")])
        try session.store().forEachAuditEntry(filter) { entry in
            output.row([.int(entry.id), .string(entry.at.iso8601), .string(entry.actor), .string(entry.command),
                        entry.formId.map(Value.int) ?? .null, .string(entry.object), .optional(entry.before),
                        .optional(entry.after), .optional(entry.note)])
        }
        output.endRows()
    }
}

/// Dates typed on the command line: `YYYY-MM-DD` (midnight UTC) or a full ISO 8601 time.
public enum DateArgument {
    public static func parse(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        day.timeZone = TimeZone(identifier: "UTC")
        return day.date(from: text)
    }
}
