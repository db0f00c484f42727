import ArgumentParser
import Foundation
import MIDirectory
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
            first file); a file already in DIR of that name is replaced. DIR is created if missing. \
            Each file is written under a temporary name and renamed, so a half-written file never \
            carries the real name.

            Examples:
              media 12 --out /tmp/review
              media 'jdoe/Pump station 4' 'Qid0(1).jpg' --out .
            """)
    public static let roles: Set<Role> = Set(Role.allCases)

    @OptionGroup public var target: FormArgument
    @Argument(help: ArgumentHelp("Only this media file (as 'show' lists it).", valueName: "file"))
    public var file: String?
    @Option(help: ArgumentHelp("The folder to write into.", valueName: "dir"), completion: .directory)
    public var out: String

    public init() {}

    public func run(in session: Session, output: OutputSink) throws {
        if let file, file.contains("/") || file.hasPrefix(".") || file.isEmpty {
            throw CommandError.failed("'\(file)' is not a media file name (like Qid0(1).jpg)")
        }
        let folder = URL(fileURLWithPath: out)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CommandError.failed("cannot write into '\(out)': it is a file, not a folder") }
        } else {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandError.failed("cannot create the folder '\(out)': \(Self.reason(error))")
            }
        }
        let visibleOwner = try session.visibleOwner(), ref = target.form
        output.beginRows([Column("form"), Column("file"), Column("bytes"), Column("path")])
        // Another's form answers as a missing one (Session.visibleOwner).
        try session.store().forEachMediaFile(of: ref, fileName: file, owner: visibleOwner) { form, media, data in
            guard !media.fileName.contains("/"), !media.fileName.hasPrefix(".") else { return }
            let path = folder.appendingPathComponent(media.fileName)
            try Self.write(data, to: path)
            output.row([.int(form.formId), .string(media.fileName), .int(Int64(data.count)), .string(path.path)])
        }
        output.endRows()
    }

    /// Temp file beside the target, then rename: the real name appears only when complete.
    static func write(_ data: Data, to path: URL) throws {
        let temporary = path.deletingLastPathComponent().appendingPathComponent(".\(path.lastPathComponent).\(getpid()).tmp")
        do {
            try data.write(to: temporary)
            if rename(temporary.path, path.path) != 0 {
                let code = errno
                try? FileManager.default.removeItem(at: temporary)
                throw CommandError.failed("cannot write '\(path.path)': \(String(cString: strerror(code)))")
            }
        } catch let error as CommandError {
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw CommandError.failed("cannot write '\(path.path)': \(reason(error))")
        }
    }

    static func reason(_ error: Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return (error as NSError).localizedDescription
    }
}
