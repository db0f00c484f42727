import ArgumentParser
import Foundation
import MIDirectory
import MIFiles
import MIReport
import MIStore

/// `report FORM --pdf FILE` and `report --state STATE [--owner UID] --dir DIR`: the printable
/// review of forms as PDF (MIReport: cairo and pango). Everyone who may `show` a form may print it.
public struct ReportCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print the review of a form (or of many) as PDF.",
        discussion: """
            One form: 'report FORM --pdf FILE'. Many: 'report --state completed [--owner UID] \
            --dir DIR' writes one PDF per form, named 'owner - form name.pdf', with a progress \
            bar on a terminal; DIR is created if missing. Each file is written to a temporary \
            file in its folder and renamed into place; an existing file is replaced only with \
            --force, and left alone without a word with --skip-existing (a nightly job that \
            writes only the new reports) when it is a PDF file of your own; anything else at \
            the name (a symbolic link, another user's file) is a warning and exit 1. Warnings come after the progress bar. Times are \
            shown in the site's time zone (display.timeZone; docs/review.md).

            Examples:
              report 12 --pdf /tmp/pump.pdf
              report 'jdoe/Pump station 4' --pdf pump.pdf --force
              report --state completed --dir /srv/reports
              report --state completed --owner jdoe --dir ./jdoe
              report --state completed --dir /srv/reports --skip-existing
            """)
    public static let roles: Set<Role> = ShowCommand.roles

    @Argument(help: ArgumentHelp("The form: its id, or owner/name (quote names with spaces).", valueName: "form"))
    public var form: FormReference?
    @Option(help: ArgumentHelp("Write the report of FORM to this PDF file.", valueName: "file"), completion: .file(extensions: ["pdf"]), transform: UserPath.expanded)
    public var pdf: String?
    @Option(help: "Report every form in this state (with --dir).")
    public var state: FormState?
    @Option(help: ArgumentHelp("With --state: only forms of this technician.", valueName: "uid"))
    public var owner: String?
    @Option(help: ArgumentHelp("With --state: the folder for the PDF files.", valueName: "dir"), completion: .directory, transform: UserPath.expanded)
    public var dir: String?
    @Flag(help: "Replace files that exist.")
    public var force = false
    @Flag(name: .customLong("skip-existing"), help: "With --dir: leave files that exist as they are, and write the others.")
    public var skipExisting = false

    public init() {}

    public func validate() throws {
        if form != nil {
            guard pdf != nil else { throw ValidationError("give --pdf FILE for the report of one form") }
            guard state == nil, owner == nil, dir == nil else {
                throw ValidationError("--state, --owner and --dir are for many forms; give either FORM --pdf FILE or --state STATE --dir DIR")
            }
        } else {
            guard pdf == nil else { throw ValidationError("--pdf needs a FORM") }
            guard state != nil, dir != nil else {
                throw ValidationError("give FORM --pdf FILE, or --state STATE --dir DIR for many forms")
            }
        }
        if skipExisting {
            guard dir != nil else { throw ValidationError("--skip-existing is for --dir (many forms)") }
            guard !force else { throw ValidationError("--force replaces existing files, --skip-existing leaves them: give one") }
        }
    }

    public func run(in session: Session, output: OutputSink) throws {
        if let form, let pdf {
            var target = FormArgument()
            target.form = form
            let review = try ShowCommand.review(target, in: session)
            let pages = try write(review, to: .path(pdf), session: session)
            output.record([Column("id"), Column("owner"), Column("name"), Column("file"), Column("pages")],
                          [.int(review.form.id), .string(review.form.owner), .string(review.form.name),
                           .string(pdf), .int(Int64(pages))])
            if session.dryRun { output.note(Self.wouldWrite(pdf, pages: pages)) }
        } else if let state, let dir {
            try many(state: state, dir: dir, session: session, output: output)
        }
    }

    private func many(state: FormState, dir: String, session: Session, output: OutputSink) throws {
        let owner = try session.visibleOwner(asked: self.owner)
        // Nil only in a dry run, for a folder that would be made.
        let folder = try DestinationFolder.open(dir, dryRun: session.dryRun, output: output)
        let store = try session.store()
        // Ids only: the forms are then read, laid out and written one at a time.
        var forms: [(id: Int64, owner: String, name: String)] = []
        try store.listing.forEachForm(FormFilter(owner: owner, state: state)) { forms.append(($0.id, $0.owner, $0.name)) }
        var usedNames = Set<String>()
        var failures = 0, skipped = 0
        // Said after the progress bar, which a warning in its middle would break.
        var warnings: [String] = []
        output.beginRows([Column("id"), Column("owner"), Column("name"), Column("file"), Column("pages")])
        for (done, form) in forms.enumerated() {
            try session.checkpoint("\(done - failures) of \(forms.count) report(s) written to \(dir); the rest were not started")
            output.progress("report", done: done, total: forms.count)
            var fileName = Self.fileName(owner: form.owner, name: form.name)
            if usedNames.contains(fileName) { fileName = Self.fileName(owner: form.owner, name: "\(form.name) (\(form.id))") }
            usedNames.insert(fileName)
            if skipExisting, let folder {
                // Only a PDF of the user's own counts as the report written before: a link or
                // another user's file planted at the name would leave the report missing unseen.
                do {
                    if try folder.holdsOwnFile(fileName, beginningWith: Self.pdfMagic) {
                        skipped += 1
                        continue
                    }
                } catch {
                    failures += 1
                    warnings.append("form \(form.id) \(form.owner)/\(form.name): not written, and not counted as written before: \(error)")
                    continue
                }
            }
            do {
                let review = try store.listing.review(.id(form.id))
                let path = folder?.pathOf(fileName) ?? DestinationFolder.path(fileName, in: dir)
                let pages = try write(review, to: .named(fileName, in: folder), session: session)
                output.row([.int(form.id), .string(form.owner), .string(form.name), .string(path), .int(Int64(pages))])
                if session.dryRun { output.note(Self.wouldWrite(path, pages: pages)) }
            } catch let error as ReportError {
                failures += 1
                warnings.append("form \(form.id) \(form.owner)/\(form.name): \(error)")
            } catch let error as StoreError where error.kind == .invalidInput {
                failures += 1
                warnings.append(error.message)
            }
        }
        output.progress("report", done: forms.count, total: forms.count)
        output.endRows()
        warnings.forEach(output.warning)
        if skipped > 0 { output.note("\(skipped) of \(forms.count) report(s) existed and were left as they are (--skip-existing)") }
        if failures > 0 {
            throw CommandError.failed("\(failures) of \(forms.count) report(s) could not be written (see the warnings above)")
        }
    }

    /// Where a report goes; a nil folder is one a dry run would make.
    private enum Destination {
        case path(String)
        case named(String, in: Folder?)
    }

    /// What a dry run says for each report it did not write.
    static func wouldWrite(_ path: String, pages: Int) -> String {
        "dry run: would write \(path) (\(pages) page\(pages == 1 ? "" : "s"))"
    }

    private func write(_ review: FormReview, to destination: Destination, session: Session) throws -> Int {
        let store = try session.store()
        let ownerName = try session.directory.user(uid: review.form.owner)?.name
        let context = ReportContext(ownerName: ownerName, store: session.config.store.displayName, printedAt: session.clock.now(),
                                    timeZone: session.config.display.timeZone) { file in
            try store.listing.mediaData(.id(review.form.id), fileName: file.fileName)
        }
        do {
            switch destination {
            case .path(let path) where session.dryRun:
                return try ReviewReport.pages(review, context: context, to: URL(fileURLWithPath: path), replace: force)
            case .path(let path):
                return try ReviewReport.write(review, context: context, to: URL(fileURLWithPath: path), replace: force)
            case .named(let name, let folder) where session.dryRun:
                return try ReviewReport.pages(review, context: context, named: name, in: folder, replace: force)
            case .named(let name, let folder):
                // Nil only in a dry run (a folder it would make), handled above.
                return try ReviewReport.write(review, context: context, named: name, in: folder!, replace: force)
            }
        } catch let error as ReportError {
            if form != nil { throw CommandError.failed(error.description) }
            throw error
        }
    }

    /// How every PDF file begins.
    static let pdfMagic = Array("%PDF-".utf8)

    /// `owner - form name.pdf`, safe as one file name: `/`, control characters and a leading dot
    /// become `_`, and the name is cut to stay within 255 bytes.
    static func fileName(owner: String, name: String) -> String {
        var base = "\(owner) - \(name)".unicodeScalars.map { scalar -> String in
            scalar == "/" || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : String(scalar)
        }.joined()
        if base.hasPrefix(".") { base = "_" + base.dropFirst() }
        while base.utf8.count > 240 { base.removeLast() }
        return base + ".pdf"
    }
}
