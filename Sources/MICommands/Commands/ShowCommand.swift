import ArgumentParser
import MIDirectory
import MIStore

/// `show FORM`: the foreman's review table — every question with its typed answer, the
/// comment, media, rule violations — plus the form's violations, foreman comments and media
/// files with their sizes. The answers are data (docs/review.md): a grid in a table, typed
/// values in JSON, one line per question in CSV.
public struct ShowCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Review one form: typed answers, comments, media, rule violations.",
        discussion: """
            Questions are numbered from 1 (media file names keep the device's 0-based Qid). \
            JSON gives each answer typed: a string, a number, true/false, the chosen option \
            names, or a table object {columns, rows, cells, noCells}; CSV writes one line per \
            question (docs/review.md). A form with a table declaring more than \
            \(ReviewTable.maximumCells) cells is refused; 'check' lists such forms.

            Examples:
              show 12
              show 'jdoe/Pump station 4'
              show 12 --format json
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @OptionGroup public var target: FormArgument

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let review = try Self.review(target, in: session)
        session.recall.saw(review.form)
        let (columns, values) = Self.record(review)
        output.record(columns, values)
    }

    /// The review as `show` gives it: the form's columns, then questions, violations, foreman
    /// comments and media files. Also the `form` part `deliver` sends to the office.
    static func record(_ review: FormReview) -> ([Column], [Value]) {
        let questions: [Value] = review.questions.map { q in
            .object([.init("#", .int(Int64(q.number))), .init("type", .string(q.kind.rawValue)),
                     .init("question", .string(q.text)), .init("answer", Self.value(q.answer)),
                     .init("comment", .string(q.comment)), .init("media", .list(q.media.map { .string($0.fileName) })),
                     .init("violations", .list(q.violations.map { .string($0.message) })),
                     .init("help", .optional(q.help)), .init("invalidAnswer", .optional(q.invalidAnswer))])
        }
        let violations: [Value] = review.violations.map { .string($0.description) }
        let comments: [Value] = review.foremanComments.map { comment in
            .object([.init("author", .string(comment.author)), .init("at", .time(comment.at)),
                     .init("text", .string(comment.text))])
        }
        let media: [Value] = review.media.map { file in
            .object([.init("question", .int(Int64(file.question + 1))), .init("file", .string(file.fileName)),
                     .init("bytes", .int(Int64(file.size))), .init("sha256", .string(file.sha256))])
        }
        return (FormColumns.columns + [Column("questions"), Column("violations"), Column("comments"), Column("mediaFiles")],
                FormColumns.values(review.form) + [.list(questions), .list(violations), .list(comments), .list(media)])
    }

    /// The review of the form `target` names, if the session's user may see it: the one rule for
    /// `show` and `report` ("every role that may show the form").
    static func review(_ target: FormArgument, in session: Session) throws -> FormReview {
        // Looked up as the user may see it: another's form is "no such form", as a missing one.
        do {
            return try session.store().listing.review(target.form, owner: session.visibleOwner())
        } catch let error as StoreError where error.kind == .notFound {
            // Those who may run `find` are told where the form went (moved, trashed, purged).
            throw FindCommand.pointing(error, target.form, in: session)
        }
    }

    /// A typed answer as output: JSON gets a string, a number (its literal), a boolean, an array
    /// of option names or a table object; nil is null.
    static func value(_ answer: ReviewAnswer?) -> Value {
        switch answer {
        case nil: return .null
        case .shortAnswer(let text)?: return .string(text)
        case .numeric(_, let literal)?: return .number(literal)
        case .trueFalse(let flag)?: return .bool(flag)
        case .multipleChoice(let names)?: return .list(names.map(Value.string))
        case .table(let table)?: return .grid(table)
        }
    }
}
