import ArgumentParser
import Foundation
import MIDirectory
import MIFiles
import MIStore

/// `export DIR`: write the store as a field app `Documents/` tree that `import` reads back
/// identically. DIR must not exist yet or be empty.
public struct ExportCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the store as a field app Documents/ folder tree.",
        discussion: """
            Incomplete and completed forms with their media, unread notices as Error/<uid> \
            files, foreman comments in form.json. Submitted forms have no folder in the \
            layout and are counted, not written.

            Example:
              export /tmp/Documents
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("A new (or empty) folder.", valueName: "dir"), completion: .directory, transform: UserPath.expanded)
    public var dir: String

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let report = try session.store().changes.exportTree(to: URL(fileURLWithPath: dir))
        for issue in report.skipped { output.warning(issue.description) }
        output.record([Column("dir"), Column("incomplete"), Column("completed"), Column("media"), Column("notices"),
                       Column("skippedSubmitted")],
                      [.string(report.path), .int(Int64(report.incompleteForms)), .int(Int64(report.completedForms)),
                       .int(Int64(report.mediaFiles)), .int(Int64(report.notices)), .int(Int64(report.submittedSkipped))])
    }
}
