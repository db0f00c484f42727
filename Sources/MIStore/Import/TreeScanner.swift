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
        guard isDirectory(root.path) else {
            throw StoreError(.invalidInput, "\(root.path) is not a directory.", path: root.path)
        }
        var scanner = TreeScanner()
        guard let top = scanner.entries(of: root.path) else {
            throw StoreError(.io, "Cannot read the directory \(root.path).", path: root.path)
        }
        for entry in top {
            let path = root.path + "/" + entry
            if entry == completedFolder, isDirectory(path) {
                for uid in scanner.entries(of: path) ?? [] {
                    scanner.scanUser(uid, at: path + "/" + uid, state: .completed)
                }
            } else if entry == errorFolder, isDirectory(path) {
                for uid in scanner.entries(of: path) ?? [] {
                    let filePath = path + "/" + uid
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
        guard Self.isDirectory(path) else {
            errors.append(ImportIssue(path: path, reason: "a file where a user folder was expected"))
            return
        }
        guard validUid(uid, path: path) else { return }
        for name in entries(of: path) ?? [] {
            let formPath = path + "/" + name
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

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
