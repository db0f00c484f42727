import ArgumentParser
import MIDirectory
import MIStore

/// `forms`: the store's live forms, streamed (a million-form listing does not load them all).
public struct FormsCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "forms",
        abstract: "List forms in the store (technicians see their own).",
        discussion: """
            Examples:
              forms
              forms --owner jdoe --state incomplete
              forms --template 'Monthly pump inspection' --older-than 5
              forms --state incomplete --count-by owner    # who has the most incomplete forms

            --count-by prints one row per owner, state or template with its number of forms \
            (most first), with the same filters.
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Option(help: ArgumentHelp("Only forms of this technician.", valueName: "technician"))
    public var owner: String?
    @Option(help: "Only forms in this state (incomplete, completed, submitted).")
    public var state: FormState?
    @Option(help: ArgumentHelp("Only forms made from this template.", valueName: "template"))
    public var template: String?
    @Option(name: .customLong("older-than"), help: ArgumentHelp("Only forms created more than this many days ago.", valueName: "days"))
    public var olderThan: Int?

    @Option(name: .customLong("count-by"), help: "Count the forms per owner, state or template instead of listing them.")
    public var countBy: FormField?

    public init() {}

    public func validate() throws {
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than takes a number of days, 0 or more") }
    }

    public func run(in session: Session, output: OutputSink) throws {
        let owner = try session.visibleOwner(asked: self.owner)
        let filter = FormFilter(owner: owner, state: state, template: template, olderThanDays: olderThan)
        if let countBy {
            output.beginRows([Column(countBy.rawValue), Column("count")])
            for group in try session.store().countForms(by: countBy, filter) {
                output.row([.string(group.value), .int(Int64(group.count))])
            }
            output.endRows()
            return
        }
        output.beginRows(FormColumns.columns)
        try session.store().forEachForm(filter) {
            try session.checkpointRow()
            output.row(FormColumns.values($0))
        }
        output.endRows()
    }
}

extension FormField: ExpressibleByArgument {}
