import ArgumentParser
import MIDirectory
import MIStore

/// `comment FORM TEXT`: a foreman's general comment on a completed form. Comments accumulate;
/// none is ever edited away.
public struct CommentCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "comment",
        abstract: "Add a foreman comment to a completed form.",
        discussion: "Examples:\n  comment 12 'Bearing temperatures high, check next month'")
    public static let roles: Set<Role> = [.foreman]

    @OptionGroup public var target: FormArgument
    @Argument(help: ArgumentHelp("The comment.", valueName: "text"))
    public var text: String
    @OptionGroup public var note: NoteOption

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let comment = try session.store().comment(target.reference(), text: text, author: session.user.uid, note: note.note)
        output.record([Column("form"), Column("author"), Column("at"), Column("text")],
                      [.string(target.form), .string(comment.author), .time(comment.at), .string(comment.text)])
    }
}
