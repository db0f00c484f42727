import ArgumentParser
import MIDirectory
import MIStore

/// `show FORM`: the foreman's review table — every question with its answer rendered by type,
/// the comment, media names — plus rule violations and foreman comments.
public struct ShowCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Review one form: answers by type, comments, media, rule violations.",
        discussion: "Examples:\n  show 12\n  show 'jdoe/Pump station 4'")
    public static let roles: Set<Role> = Set(Role.allCases)

    @OptionGroup public var target: FormArgument

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        // Looked up as the user may see it: another's form is "no such form", as a missing one.
        let review = try session.store().review(target.reference(), owner: session.visibleOwner())
        let form = review.form
        let questions: [Value] = review.questions.map { q in
            .object([.init("#", .int(Int64(q.index + 1))), .init("type", .string(q.kind.rawValue)),
                     .init("question", .string(q.text)), .init("answer", .string(q.answer)),
                     .init("comment", .string(q.comment)), .init("media", .list(q.media.map(Value.string)))])
        }
        let violations: [Value] = review.violations.map { .string($0.description) }
        let comments: [Value] = review.foremanComments.map { comment in
            .object([.init("author", .string(comment.author)), .init("at", .time(comment.at)),
                     .init("text", .string(comment.text))])
        }
        output.record(FormColumns.columns + [Column("questions"), Column("violations"), Column("comments")],
                      FormColumns.values(form) + [.list(questions), .list(violations), .list(comments)])
    }
}
