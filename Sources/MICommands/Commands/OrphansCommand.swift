import ArgumentParser
import MIDirectory
import MIStore

/// `orphans`: forms whose owner left the directory or the technician group — ready to `move`.
public struct OrphansCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "orphans",
        abstract: "List forms whose owner is no longer a technician in the directory.",
        discussion: """
            Incomplete and completed forms only (submitted forms are done; trashed ones wait for \
            purge). Give an incomplete one to a technician with 'move FORM UID'; review and \
            submit a completed one.

            Example:
              orphans
              miadmin --format csv -c orphans > orphans.csv
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        output.beginRows(FormColumns.columns + [Column("reason")])
        try Self.forEachOrphan(store: store, session: session) { form, reason in
            try session.checkpointRow()
            output.row(FormColumns.values(form) + [.string(reason)])
        }
        output.endRows()
    }

    /// Each live incomplete or completed form whose owner cannot keep it, with the reason; owners
    /// looked up once each.
    static func forEachOrphan(store: StoreAreas, session: Session,
                              _ body: (FormSummary, String) throws -> Void) throws {
        var gone: [(String, String)] = []
        try store.administration.forEachOwner { uid, _ in
            if let problem = try session.ownerProblem(uid) { gone.append((uid, problem)) }
        }
        for (uid, problem) in gone {
            try store.listing.forEachForm(FormFilter(owner: uid)) { form in
                guard form.state != .submitted else { return }
                try body(form, problem)
            }
        }
    }
}
