import Foundation
import MIFiles

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
        let formFolder: Folder
        let names: [String]
        do {
            formFolder = try folder.open()
        } catch {
            throw failure(folder.path, TreeScanner.refusal(error))
        }
        do {
            names = try formFolder.entries()
        } catch {
            throw failure(folder.path, "cannot read the form folder")
        }
        let jsonPath = folder.path + "/" + formFile
        guard names.contains(formFile) else { throw failure(folder.path, "no \(formFile) in the form folder") }
        var document: FormDocument
        do {
            document = try FormDocument(jsonData: try readFile(formFile, in: formFolder, limit: limits.formJSONBytes))
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
            let data = try readFile(name, in: formFolder, limit: limits.mediaBytes)
            let file = MediaFile(fileName: name.nfc, question: parsed.question, number: parsed.number, ext: parsed.ext,
                                 size: data.count, sha256: MediaDigest.hex(data))
            media.append(LoadedMedia(file: file, data: data))
        }
        return LoadedForm(owner: folder.owner, state: folder.state, document: document, media: media, path: folder.path)
    }

    /// The bytes of the regular file `name` of the (opened) form folder, of at most `limit`
    /// bytes, or why they cannot be read: ``Folder/readFile(_:limit:)`` opens it with
    /// `O_NOFOLLOW` (a link is refused, even one swapped in after the scan) and checks it with
    /// `fstat` on the open descriptor, so what is read is what was checked.
    static func readFile(_ name: String, in folder: Folder, limit: Int) throws(ImportIssue) -> Data {
        do {
            return try folder.readFile(name, limit: limit)
        } catch {
            throw issue(error, limit: limit)
        }
    }

    /// An import's words for why a file of the tree could not be read.
    static func issue(_ error: FileError, limit: Int) -> ImportIssue {
        let reason: String
        switch error.code {
        case ELOOP: reason = "a symbolic link: not followed, skipped"
        case ENOENT: reason = "cannot read the file: it does not exist"
        case EISDIR: reason = "a folder, expected a file"
        case EINVAL: reason = "not a regular file or folder: skipped"
        case EFBIG: reason = (error.doing.map { "\($0), more" } ?? "more") + " than the limit of \(ImportLimits.describe(limit))"
        case ENOTDIR: reason = TreeScanner.refusal(error)
        default: reason = "cannot read the file (\(error.reason))"
        }
        return ImportIssue(path: error.path, reason: reason)
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
