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
            files and Error/<uid> notice files (docs/store.md). Symbolic links, devices and \
            pipes in the tree are reported and skipped, never followed; form.json is capped at \
            4 MiB, media files at import.maxMediaMiB (default 256). foremanComments in a \
            form.json are kept with the author "(form.json)", never under a person's name. \
            A broken form is reported with \
            its path and reason and skipped; every other form is imported, each completely or \
            not at all. Shows what it will do and asks first (--yes to skip the question).

            Examples:
              import /mnt/tablet/Documents
              import --yes ./Documents
            """)
    public static let roles: Set<Role> = [.foreman, .support]

    @Argument(help: ArgumentHelp("The Documents/ folder.", valueName: "dir"), completion: .directory)
    public var dir: String
    @Flag(help: "Do not ask for confirmation.")
    public var yes = false

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        let store = try session.store()
        let root = URL(fileURLWithPath: dir)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandError.failed("'\(dir)' is not a folder")
        }
        if !(yes || session.assumeYes) {
            // Preview: the same import, rolled back, to say what it would do.
            let preview = try store.withSessionTransaction(end: .rollback) {
                try store.importTree(at: root, actor: session.user.uid, limits: session.config.import.limits)
            }
            if preview.changedNothing && preview.collisions.isEmpty && preview.errors.isEmpty {
                output.message("nothing to import from \(dir): the store already has all of it")
                return
            }
            try session.confirm("import \(preview.inserted.count) new and \(preview.updated.count) updated form(s), "
                                + "\(preview.noticesAdded) notice(s) from \(dir)?", yes: false)
        }
        let report = try store.importTree(at: root, actor: session.user.uid, limits: session.config.import.limits)
        let problems = report.errors + report.collisions
        for issue in problems { output.warning(issue.description) }
        for warning in report.warnings { output.warning(warning.description) }
        output.beginRows([Column("id"), Column("owner"), Column("name"), Column("state"), Column("action"), Column("path")])
        for form in report.inserted { output.row(row(form, "inserted")) }
        for form in report.updated { output.row(row(form, "updated")) }
        output.endRows()
        if !problems.isEmpty {
            throw CommandError.failed("\(problems.count) form(s) could not be imported (see the warnings above); "
                                      + "\(report.inserted.count + report.updated.count) were imported, \(report.unchanged) unchanged")
        }
    }

    private func row(_ form: ImportedForm, _ action: String) -> [Value] {
        [.int(form.id), .string(form.owner), .string(form.name), .string(form.state.rawValue), .string(action), .string(form.path)]
    }
}
