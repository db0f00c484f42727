import ArgumentParser
import Foundation
import MIDirectory
import MIFiles
import MIStore

/// `media FORM [FILE] --out DIR`: copy a form's photos, videos and recordings out of the store
/// for review, under the names the device gave them.
public struct MediaCommand: ConsoleCommand {
    public static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Write one or all media files of a form into a folder.",
        discussion: """
            Any form you may 'show', including submitted forms and forms in the trash (by id, or \
            owner/name as trashed). Files keep the device's names (Qid0(1).jpg: question 1, \
            first file); a file already in DIR of that name is replaced (a folder or a link of that name \
            is refused and left alone). DIR is created if missing. \
            Each file is written under a temporary name and renamed, so a half-written file never \
            carries the real name.

            Examples:
              media 12 --out /tmp/review
              media 'jdoe/Pump station 12' 'Qid0(1).jpg' --out .
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @OptionGroup public var target: FormArgument
    @Argument(help: ArgumentHelp("Only this media file (as 'show' lists it).", valueName: "file"))
    public var file: String?
    @Option(help: ArgumentHelp("The folder to write into.", valueName: "dir"), completion: .directory, transform: UserPath.expanded)
    public var out: String

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        if let file, file.contains("/") || file.hasPrefix(".") || file.isEmpty {
            throw CommandError.failed("'\(file)' is not a media file name (like Qid0(1).jpg)")
        }
        // Nil only in a dry run, for a folder that would be made.
        let folder = try DestinationFolder.open(out, dryRun: session.dryRun, output: output)
        let visibleOwner = try session.visibleOwner(), ref = target.form
        output.beginRows([Column("form"), Column("file"), Column("bytes"), Column("path")])
        // Another's form answers as a missing one (Session.visibleOwner); a form that went
        // elsewhere is pointed to.
        do {
            try session.store().listing.forEachMediaFile(of: ref, fileName: file, owner: visibleOwner) { form, media, data in
                guard !media.fileName.contains("/"), !media.fileName.hasPrefix(".") else { return }
                let path = folder?.pathOf(media.fileName) ?? DestinationFolder.path(media.fileName, in: out)
                if session.dryRun {
                    output.note("dry run: would write \(path) (\(data.count) bytes)")
                } else {
                    // Nil only in a dry run.
                    try Self.write(data, to: media.fileName, in: folder!)
                }
                output.row([.int(form.formId), .string(media.fileName), .int(Int64(data.count)), .string(path)])
            }
        } catch let error as StoreError where error.kind == .notFound {
            throw FindCommand.pointing(error, ref, in: session)
        }
        output.endRows()
    }

    /// Through the folder's descriptor, under an unpredictable temporary name, then renamed
    /// (``NewFile``): the real name appears only when complete, and a link planted in a shared
    /// folder is never followed.
    static func write(_ data: Data, to name: String, in folder: Folder) throws {
        do {
            let file = try NewFile(in: folder, for: name)
            try file.write(data)
            try file.commit(as: name, existing: .replaceFile)
        } catch {
            throw CommandError.failed("cannot write '\(error.path)': \(error.doing.map { "\($0): " } ?? "")\(error.reason)")
        }
    }
}
