import Foundation

/// Walks a `Documents/` tree (see `spec/device-layout.md`) and lists what it holds,
/// without reading any form: form folders with owner and state, and `Error/<uid>` files.
struct TreeScanner {
    static let completedFolder = "Completed MIs"
    static let errorFolder = "Error"

    struct FormFolder: Sendable {
        let owner: String
        let folderName: String
        let state: FormState
        let path: String
    }

    struct ErrorFile: Sendable {
        let uid: String
        let path: String
    }

    var forms: [FormFolder] = []
    var errorFiles: [ErrorFile] = []
    var errors: [ImportIssue] = []
    var warnings: [ImportIssue] = []

    /// Scans the tree at `root`; throws `.invalidInput` when `root` is not a readable directory.
    static func scan(_ root: URL) throws -> TreeScanner {
        // The root is the folder the user named: it may be a link to a folder. Below it, nothing is followed.
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw StoreError(.invalidInput, "\(root.path) is not a directory.", path: root.path)
        }
        var scanner = TreeScanner()
        guard let top = scanner.entries(of: root.path) else {
            throw StoreError(.io, "Cannot read the directory \(root.path).", path: root.path)
        }
        for entry in top {
            let path = root.path + "/" + entry
            guard scanner.acceptable(path) else { continue }
            if entry == completedFolder, isDirectory(path) {
                for uid in scanner.entries(of: path) ?? [] {
                    scanner.scanUser(uid, at: path + "/" + uid, state: .completed)
                }
            } else if entry == errorFolder, isDirectory(path) {
                for uid in scanner.entries(of: path) ?? [] {
                    let filePath = path + "/" + uid
                    guard scanner.acceptable(filePath) else { continue }
                    if isDirectory(filePath) {
                        scanner.errors.append(ImportIssue(path: filePath, reason: "a folder, expected an Error file of a user"))
                    } else if scanner.validUid(uid, path: filePath) {
                        scanner.errorFiles.append(ErrorFile(uid: uid.nfc, path: filePath))
                    }
                }
            } else {
                scanner.scanUser(entry, at: path, state: .incomplete)
            }
        }
        return scanner
    }

    private mutating func scanUser(_ uid: String, at path: String, state: FormState) {
        guard acceptable(path) else { return }
        guard Self.isDirectory(path) else {
            errors.append(ImportIssue(path: path, reason: "a file where a user folder was expected"))
            return
        }
        guard validUid(uid, path: path) else { return }
        for name in entries(of: path) ?? [] {
            let formPath = path + "/" + name
            guard acceptable(formPath) else { continue }
            if Self.isDirectory(formPath) {
                forms.append(FormFolder(owner: uid.nfc, folderName: name, state: state, path: formPath))
            } else {
                errors.append(ImportIssue(path: formPath, reason: "a file where a form folder was expected"))
            }
        }
    }

    private mutating func validUid(_ uid: String, path: String) -> Bool {
        do {
            _ = try Validate.uid(uid)
            return true
        } catch {
            errors.append(ImportIssue(path: path, reason: "'\(uid)' is not a valid user id"))
            return false
        }
    }

    /// The sorted entries of a directory, hidden ones (".DS_Store") skipped with a warning;
    /// nil (and an error) when it cannot be read.
    mutating func entries(of path: String) -> [String]? {
        do {
            let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            for hidden in names where hidden.hasPrefix(".") {
                warnings.append(ImportIssue(path: path + "/" + hidden, reason: "hidden file ignored"))
            }
            return names.filter { !$0.hasPrefix(".") }
        } catch {
            errors.append(ImportIssue(path: path, reason: "cannot read the folder"))
            return nil
        }
    }

    /// What a path is, without following a symbolic link at its last part (`lstat`).
    enum EntryKind { case folder, file, symbolicLink, other, missing }

    static func kind(_ path: String) -> EntryKind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// Why the entry at `path` is not imported (a symbolic link, a device, a pipe, a socket),
    /// or nil for a regular file or a folder. A link is never followed: the tree may come from
    /// somebody else, and a link could make the import read files the tree does not hold.
    static func refusal(_ path: String) -> String? {
        switch kind(path) {
        case .folder, .file: return nil
        case .symbolicLink: return "a symbolic link: not followed, skipped"
        case .other: return "not a regular file or folder: skipped"
        case .missing: return "vanished while the tree was read: skipped"
        }
    }

    /// Records a refused entry as an error; true when the entry may be imported.
    private mutating func acceptable(_ path: String) -> Bool {
        guard let reason = Self.refusal(path) else { return true }
        errors.append(ImportIssue(path: path, reason: reason))
        return false
    }

    /// A real folder (a symbolic link to one is not).
    static func isDirectory(_ path: String) -> Bool { kind(path) == .folder }
}
