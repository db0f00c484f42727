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
              forms --owner 'u0000*'
              forms --team 'Kolonne Nord' --state completed

            --owner takes a user id or a glob, as 'users' does (* any run of characters, ? one, \\ \
            makes the next literal). When no form in the store belongs to the owner named, a \
            note on stderr says so (with a "did you mean" for a typo). --count-by prints one row per \
            owner, state or template with its number of forms (most first), with the same filters. \
            Where the site keeps crews, a foreman sees the forms of the crews he leads (and his own).
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Option(help: ArgumentHelp("Only forms of this technician (a user id, or a glob like 'u0000*').",
                               valueName: "technician"))
    public var owner: String?
    @Option(help: "Only forms in this state (incomplete, completed, submitted).")
    public var state: FormState?
    @Option(help: ArgumentHelp("Only forms made from this template.", valueName: "template"))
    public var template: String?
    @Option(name: .customLong("older-than"), help: ArgumentHelp("Only forms created more than this many days ago.", valueName: "days"))
    public var olderThan: Int?

    @Option(help: ArgumentHelp("Only forms of this crew's technicians (see 'teams').", valueName: "team"))
    public var team: String?

    @Option(name: .customLong("count-by"), help: "Count the forms per owner, state or template instead of listing them.")
    public var countBy: FormField?

    public init() {}

    public func validate() throws {
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than takes a number of days, 0 or more") }
    }

    public func run(in session: Session, output: OutputSink) throws {
        let owner = try session.visibleOwner(asked: self.owner)
        let store = try session.store()
        var filter = FormFilter(owner: owner, state: state, template: template, olderThanDays: olderThan)
        if let team {
            filter.owners = Set(try session.directory.memberIDs(of: session.visibleCrew(team)))
        }
        // A glob on --owner, as `users` takes one: the store's owners it matches (with forms
        // passing the other filters), listed one after the other, in owner order.
        let owners = try FormSelection.owners(matching: owner, filter: filter, store: store)
        var listed = 0
        if let countBy {
            var counts: [(value: String, count: Int)] = []
            for owner in owners {
                filter.owner = owner
                for group in try store.countForms(by: countBy, filter) {
                    if let index = counts.firstIndex(where: { $0.value == group.value }) {
                        counts[index].count += group.count
                    } else {
                        counts.append(group)
                    }
                }
            }
            output.beginRows([Column(countBy.rawValue), Column("count")])
            for group in counts.enumerated().sorted(by: { ($1.element.count, $0.offset) < ($0.element.count, $1.offset) }) {
                output.row([.string(group.element.value), .int(Int64(group.element.count))])
            }
            output.endRows()
            listed = counts.count
        } else {
            output.beginRows(FormColumns.columns)
            for owner in owners {
                filter.owner = owner
                try store.forEachForm(filter) {
                    try session.checkpointRow()
                    session.recall.saw($0)
                    output.row(FormColumns.values($0))
                    listed += 1
                }
            }
            output.endRows()
        }
        if listed == 0, let asked = self.owner, !session.isTechnicianOnly {
            try Self.noteIfNoSuchOwner(asked, store: store, output: output)
        }
    }

    /// `forms --owner jdo` gave 0 rows and no word why: say when no form in the store belongs
    /// to that owner (or to any owner the glob matches), with the nearest owner for a typo: a
    /// note on stderr, not an error.
    static func noteIfNoSuchOwner(_ asked: String, store: any StoreService, output: OutputSink) throws {
        let glob = Glob(asked)
        let owners = try store.countForms(by: .owner).map(\.value)
        guard !owners.contains(where: { glob.isLiteral ? $0 == asked : glob.matches($0) }) else { return }
        if !glob.isLiteral {
            output.note("no owner of a form in the store matches '\(asked)'")
        } else if let guess = Spelling.closest(to: asked, among: owners) {
            output.note("no form in the store belongs to '\(asked)'; did you mean '\(guess)'?")
        } else {
            output.note("no form in the store belongs to '\(asked)'")
        }
    }
}

extension FormField: ExpressibleByArgument {}
