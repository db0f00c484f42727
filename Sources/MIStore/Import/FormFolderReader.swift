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

    static func read(_ folder: TreeScanner.FormFolder, warnings: inout [ImportIssue]) throws(ImportIssue) -> LoadedForm {
        func failure(_ path: String, _ reason: String) -> ImportIssue {
            ImportIssue(path: path, reason: reason)
        }
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
            document = try FormDocument(jsonData: try readFile(jsonPath, maximumBytes: JSONLimits.standard.maximumBytes))
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
            let data = try readFile(path)
            let file = MediaFile(fileName: name.nfc, question: parsed.question, number: parsed.number, ext: parsed.ext,
                                 size: data.count, sha256: MediaDigest.hex(data))
            media.append(LoadedMedia(file: file, data: data))
        }
        return LoadedForm(owner: folder.owner, state: folder.state, document: document, media: media, path: folder.path)
    }

    /// The bytes of a regular file, or why they cannot be read. A file larger than `maximumBytes`
    /// is refused before it is read.
    static func readFile(_ path: String, maximumBytes: Int? = nil) throws(ImportIssue) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportIssue(path: path, reason: "cannot read the file: it does not exist (a dangling link?)")
        }
        if isDirectory.boolValue { throw ImportIssue(path: path, reason: "a folder, expected a file") }
        if let maximumBytes, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
           size > maximumBytes {
            throw ImportIssue(path: path, reason: "the file is \(size) bytes; at most \(maximumBytes) are allowed")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ImportIssue(path: path, reason: "cannot read the file (\((error as NSError).localizedDescription))")
        }
    }
}
