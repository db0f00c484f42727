import ArgumentParser
import Foundation
import MIDirectory
import MIFiles
import MIStore

/// `import DIR`: read a field app `Documents/` tree into the store. Safe to repeat: a second
/// import of the same tree changes nothing.
public struct ImportCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a field app Documents/ folder tree into the store.",
        discussion: """
            Reads <uid>/<form>/ (incomplete), Completed MIs/<uid>/<form>/ (completed), media \
            files and Error/<uid> notice files (docs/store.md). Symbolic links, devices and \
            pipes in the tree are reported and skipped, never followed; form.json is capped at \
            4 MiB, media files at import.maxMediaMiB (default 256). foremanComments in a \
            form.json are kept with the author "(form.json)", never under a person's name. \
            A broken form is reported with \
            its path and reason and skipped; every other form is imported, each completely or \
            not at all. Shows what it will do and asks first (--yes to skip the question); \
            --dry-run only lists. Working that out only reads the store, so other consoles keep \
            working meanwhile; a script without --yes is refused before the tree is read. Warns \
            about owners who are not technicians in the directory: their forms are imported all \
            the same, and 'orphans' lists them.

            Examples:
              import /mnt/tablet/Documents
              import --dry-run ./Documents
              import --yes ./Documents
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The Documents/ folder.", valueName: "dir"), completion: .directory, transform: UserPath.expanded)
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
        // Device times in a warning are written as every time is: in the site's zone.
        let times = TimeText(zone: session.display.timeZone)
        if batch.dryRun {
            // What would change, on reads only; nothing is written and nothing asked.
            let preview = try store.changes.previewImport(at: root, limits: session.config.import.limits)
            if preview.changedNothing && preview.collisions.isEmpty && preview.errors.isEmpty {
                output.message("nothing to import from \(dir): the store already has all of it")
                return
            }
            for issue in preview.errors + preview.collisions { output.warning(issue.description(writingTimes: times.table)) }
            for warning in preview.warnings { output.warning(warning.description) }
            try warnAboutOwners(preview, session: session, output: output)
            output.beginRows(Self.columns)
            for form in preview.inserted { output.row(row(form, "would insert")) }
            for form in preview.updated { output.row(row(form, "would update")) }
            output.endRows()
            // A pre-check in a script must fail where the real run would.
            let problems = preview.errors.count + preview.collisions.count
            if problems > 0 {
                throw CommandError.failed("\(problems) form(s) could not be imported (see the warnings above); "
                                          + "dry run: nothing was saved")
            }
            return
        }
        var ownersWarned = false
        // Refused at once, before the tree is read, when nobody can answer (a script without --yes).
        if try session.needsPreview(batch.yes, question: "import the forms and notices of \(dir)?") {
            // The preview only reads: the write lock is not held while the tree is scanned or
            // while the person reads and answers (it was, when the preview was a rolled-back import).
            let preview = try store.changes.previewImport(at: root, limits: session.config.import.limits)
            if preview.changedNothing && preview.collisions.isEmpty && preview.errors.isEmpty {
                output.message("nothing to import from \(dir): the store already has all of it")
                return
            }
            // What will fail is said before the question, not after the answer.
            let problems = preview.errors + preview.collisions
            for issue in problems { output.warning(issue.description(writingTimes: times.table)) }
            let question = "import \(preview.inserted.count) new and \(preview.updated.count) updated form(s), "
                + "\(preview.noticesAdded) notice(s) from \(dir)"
                + (problems.isEmpty ? "?" : " (\(problems.count) form(s) cannot be imported, see the warnings)?")
            // What will come in, then the question (new forms get their ids when imported).
            try BatchRemoval<ImportedForm>.preview(total: preview.inserted.count + preview.updated.count,
                                                   limit: session.previewRows, columns: Self.columns,
                                                   output: output) { emit in
                for form in preview.inserted { emit(row(form, "insert")) }
                for form in preview.updated { emit(row(form, "update")) }
            }
            try warnAboutOwners(preview, session: session, output: output)
            ownersWarned = true
            try session.confirm(question, yes: false)
        }
        let report = try store.changes.importTree(at: root, actor: session.user.uid, limits: session.config.import.limits)
        let problems = report.errors + report.collisions
        for issue in problems { output.warning(issue.description(writingTimes: times.table)) }
        for warning in report.warnings { output.warning(warning.description) }
        if !ownersWarned { try warnAboutOwners(report, session: session, output: output) }
        output.beginRows(Self.columns)
        for form in report.inserted { output.row(row(form, "inserted")) }
        for form in report.updated { output.row(row(form, "updated")) }
        output.endRows()
        if !problems.isEmpty {
            throw CommandError.failed("\(problems.count) form(s) could not be imported (see the warnings above); "
                                      + "\(report.inserted.count + report.updated.count) were imported, \(report.unchanged) unchanged")
        }
    }

    static let columns = [Column("id"), Column("owner"), Column("name"), Column("state"), Column("action"), Column("path")]

    /// One warning per owner of imported forms who is not a technician in the directory: the
    /// forms come in anyway (a tablet's work is never dropped) and wait in 'orphans'.
    private func warnAboutOwners(_ report: ImportReport, session: Session, output: OutputSink) throws {
        var counts: [String: Int] = [:]
        for form in report.inserted + report.updated { counts[form.owner, default: 0] += 1 }
        for (owner, count) in counts.sorted(by: { $0.key < $1.key }) {
            guard let problem = try session.ownerProblem(owner) else { continue }
            output.warning("\(problem): \(count) form(s) imported for them; 'orphans' lists them, "
                           + "'move FORM <technician>' gives them to someone who can finish them")
        }
    }

    private func row(_ form: ImportedForm, _ action: String) -> [Value] {
        [form.id == 0 ? .null : .int(form.id), .string(form.owner), .string(form.name), .string(form.state.rawValue), .string(action), .string(form.path)]
    }
}
