import ArgumentParser
import Foundation
import MIDirectory
import MIStore

/// `import DIR`: read a field app `Documents/` tree into the store. Safe to repeat: a second
/// import of the same tree changes nothing.
public struct ImportCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a field app Documents/ folder tree into the store.",
        discussion: """
            Reads <uid>/<form>/ (incomplete), Completed MIs/<uid>/<form>/ (completed), media \
            files and Error/<uid> notice files (docs/store.md). A broken form is reported with \
            its path and reason and skipped; every other form is imported, each completely or \
            not at all. Shows what it will do and asks first (--yes to skip the question); \
            --dry-run only lists. The preview only reads the store, so other consoles keep \
            working while a large tree is scanned; a script without --yes is refused before \
            the scan.

            Examples:
              import /mnt/tablet/Documents
              import --dry-run ./Documents
              import --yes ./Documents
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The Documents/ folder.", valueName: "dir"), completion: .directory)
    public var dir: String
    @OptionGroup public var batch: BatchOptions

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let root = URL(fileURLWithPath: dir)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandError.failed("'\(dir)' is not a folder")
        }
        let question = "import the new and updated forms and notices from \(dir)?"
        if batch.dryRun {
            // What would change, read-only; nothing is written and nothing asked.
            show(try store.previewImport(at: root), output: output, insertedAction: "would insert",
                 updatedAction: "would update")
            return
        }
        // Refused at once (before scanning) when nobody can answer the question.
        if try session.needsPreview(batch.yes, question: question) {
            // Preview on reads only: the write lock is not held while the person reads and answers.
            let preview = try store.previewImport(at: root)
            if preview.changedNothing && preview.collisions.isEmpty && preview.errors.isEmpty {
                output.message("nothing to import from \(dir): the store already has all of it")
                return
            }
            try session.confirm("import \(preview.inserted.count) new and \(preview.updated.count) updated form(s), "
                                + "\(preview.noticesAdded) notice(s) from \(dir)?", yes: false)
        }
        let report = try store.importTree(at: root, actor: session.user.uid)
        let problems = report.errors + report.collisions
        show(report, output: output, insertedAction: "inserted", updatedAction: "updated")
        if !problems.isEmpty {
            throw CommandError.failed("\(problems.count) form(s) could not be imported (see the warnings above); "
                                      + "\(report.inserted.count + report.updated.count) were imported, \(report.unchanged) unchanged")
        }
    }

    private func show(_ report: ImportReport, output: OutputSink, insertedAction: String, updatedAction: String) {
        for issue in report.errors + report.collisions { output.warning(issue.description) }
        for warning in report.warnings { output.warning(warning.description) }
        output.beginRows([Column("id"), Column("owner"), Column("name"), Column("state"), Column("action"), Column("path")])
        for form in report.inserted { output.row(row(form, insertedAction)) }
        for form in report.updated { output.row(row(form, updatedAction)) }
        output.endRows()
    }

    private func row(_ form: ImportedForm, _ action: String) -> [Value] {
        [.int(form.id), .string(form.owner), .string(form.name), .string(form.state.rawValue), .string(action), .string(form.path)]
    }
}
