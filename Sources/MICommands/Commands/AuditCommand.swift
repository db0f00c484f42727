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
    public var since: DateArgument?
    @Option(help: ArgumentHelp("Only changes made by this user.", valueName: "uid"))
    public var user: String?
    @Option(help: ArgumentHelp("Only changes to this form (id or owner/name).", valueName: "form"))
    public var form: FormReference?

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        var filter = AuditFilter(actor: user)
        filter.since = since?.date
        filter.form = form
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
