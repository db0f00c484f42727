import Foundation

/// A form folder read completely into memory, ready to be stored in one transaction.
struct LoadedForm: Sendable {
    let owner: String
    let state: FormState
    /// The document, its name in NFC.
    let document: FormDocument
    let media: [LoadedMedia]
    let path: String

    var mediaFiles: [MediaFile] { media.map(\.file) }
}

struct LoadedMedia: Sendable {
    let file: MediaFile
    let data: Data
}

/// Reads one form folder: `form.json` plus `Qid<q>(<n>).<ext>` media files. Anything wrong
/// (unreadable or broken form.json, folder name != form name, a file that is not media or
/// cannot be read) makes the whole form an error: a form is imported whole or not at all.
enum FormFolderReader {
    static let formFile = "form.json"

    static func read(_ folder: TreeScanner.FormFolder, limits: ImportLimits,
                     warnings: inout [ImportIssue]) throws(ImportIssue) -> LoadedForm {
        func failure(_ path: String, _ reason: String) -> ImportIssue {
            ImportIssue(path: path, reason: reason)
        }
        if let reason = TreeScanner.refusal(folder.path) { throw failure(folder.path, reason) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw failure(folder.path, "cannot read the form folder")
        }
        let jsonPath = folder.path + "/" + formFile
        guard names.contains(formFile) else { throw failure(folder.path, "no \(formFile) in the form folder") }
        var document: FormDocument
        do {
            document = try FormDocument(jsonData: try readFile(jsonPath, limit: limits.formJSONBytes))
        } catch let error as StoreError {
            throw failure(jsonPath, error.message)
        } catch {
            throw error as? ImportIssue ?? failure(jsonPath, "\(error)")
        }
        guard document.name == folder.folderName else {
            throw failure(jsonPath, "the form is named '\(document.name)' but its folder is '\(folder.folderName)'")
        }
        document.name = document.name.nfc

        var media: [LoadedMedia] = []
        for name in names where name != formFile {
            let path = folder.path + "/" + name
            if name.hasPrefix(".") {
                warnings.append(ImportIssue(path: path, reason: "hidden file ignored"))
                continue
            }
            guard let parsed = MediaFile.parseName(name) else {
                throw failure(path, "not a media file name: expected Qid<question>(<number>).<extension>, like Qid1(3).mp4")
            }
            let data = try readFile(path, limit: limits.mediaBytes)
            let file = MediaFile(fileName: name.nfc, question: parsed.question, number: parsed.number, ext: parsed.ext,
                                 size: data.count, sha256: MediaDigest.hex(data))
            media.append(LoadedMedia(file: file, data: data))
        }
        return LoadedForm(owner: folder.owner, state: folder.state, document: document, media: media, path: folder.path)
    }

    /// The bytes of a regular file of at most `limit` bytes, or why they cannot be read. Opened
    /// with `O_NOFOLLOW` (a link is refused, even one swapped in after the scan) and checked
    /// with `fstat` on the open descriptor, so what is read is what was checked.
    static func readFile(_ path: String, limit: Int) throws(ImportIssue) -> Data {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ELOOP: throw ImportIssue(path: path, reason: "a symbolic link: not followed, skipped")
            case ENOENT: throw ImportIssue(path: path, reason: "cannot read the file: it does not exist")
            default: throw ImportIssue(path: path, reason: "cannot read the file (\(String(cString: strerror(errno))))")
            }
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ImportIssue(path: path, reason: "cannot read the file (\(String(cString: strerror(errno))))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ImportIssue(path: path, reason: "a folder, expected a file")
        default: throw ImportIssue(path: path, reason: "not a regular file or folder: skipped")
        }
        guard info.st_size <= limit else {
            throw ImportIssue(path: path, reason: "\(info.st_size) bytes, more than the limit of \(ImportLimits.describe(limit))")
        }
        do {
            // One byte more than the limit: a file that grew since fstat is caught too.
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw ImportIssue(path: path, reason: "more than the limit of \(ImportLimits.describe(limit))")
            }
            return data
        } catch let issue as ImportIssue {
            throw issue
        } catch {
            throw ImportIssue(path: path, reason: "cannot read the file (\((error as NSError).localizedDescription))")
        }
    }
}

/// The size caps of an import (docs/store.md): a form.json larger than ``formJSONBytes`` or a
/// media file larger than ``mediaBytes`` makes its form an error; an `Error/<uid>` file is
/// capped like a form.json.
public struct ImportLimits: Sendable, Equatable {
    public var formJSONBytes: Int
    public var mediaBytes: Int

    /// form.json 4 MiB (the largest sample is a few KiB); media 256 MiB (a long tablet video).
    public static let defaults = ImportLimits(formJSONBytes: 4 << 20, mediaBytes: 256 << 20)

    public init(formJSONBytes: Int, mediaBytes: Int) {
        self.formJSONBytes = formJSONBytes
        self.mediaBytes = mediaBytes
    }

    static func describe(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
