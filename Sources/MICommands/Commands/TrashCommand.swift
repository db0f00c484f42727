import ArgumentParser
import MIDirectory
import MIStore

/// `trash`: forms that expired and wait for `purge` (or `restore`).
public struct TrashCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "trash",
        abstract: "List expired forms in the trash.",
        discussion: """
            Oldest in the trash first, with the owner and name they had when they expired.

            Examples:
              trash
              trash --owner jdoe
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Option(help: ArgumentHelp("Only forms of this technician.", valueName: "technician"))
    public var owner: String?

    public init() {}

    static let columns = FormColumns.columns + [Column("trashed")]

    static func values(_ trashed: TrashedForm) -> [Value] {
        FormColumns.values(trashed.form) + [.time(trashed.trashedAt)]
    }

    public func run(in session: Session, output: OutputSink) throws {
        output.beginRows(Self.columns)
        let owner = try session.visibleOwner(asked: self.owner)
        var found = 0
        try session.store().listing.forEachTrashedForm(owner: owner) {
            try session.checkpointRow()
            found += 1
            output.row(Self.values($0))
        }
        output.endRows()
        try session.requireKnownUser(owner, foundNothing: found == 0)
    }
}
