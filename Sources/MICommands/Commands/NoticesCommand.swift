import ArgumentParser
import MIDirectory
import MIStore

/// `notices [UID]`: notices left for a user (yours by default) — reassigned forms and the like.
public struct NoticesCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "notices",
        abstract: "List notices for a user (yours by default).",
        discussion: """
            Unread notices are also shown when a user logs in at the prompt, then marked read: \
            'notices' right after says so, and 'notices --all' lists them again.

            Examples:
              notices
              notices jdoe --all
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @Argument(help: ArgumentHelp("Whose notices (foremen and support staff may name anyone).", valueName: "uid"))
    public var uid: String?
    @Flag(help: "Include notices already read.")
    public var all = false

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let whose = try session.visibleOwner(asked: uid ?? session.user.uid) ?? session.user.uid
        let notices = try session.store().listing.notices(for: whose, unreadOnly: !all)
        output.beginRows([Column("id"), Column("uid"), Column("created"), Column("read"), Column("text")])
        for notice in notices {
            output.row([.int(notice.id), .string(notice.uid), .time(notice.created),
                        .bool(notice.readAt != nil), .string(notice.text)])
        }
        output.endRows()
        try session.requireKnownUser(uid, foundNothing: notices.isEmpty)
        if notices.isEmpty, !all, whose == session.user.uid, session.noticesShownAtLogin > 0 {
            let count = session.noticesShownAtLogin
            output.note("no unread notices: the \(count) shown at login \(count == 1 ? "is" : "are") marked read; "
                        + "'notices --all' lists \(count == 1 ? "it" : "them")")
        }
    }
}
