import Foundation
import MIFiles

/// Walks a `Documents/` tree (see `spec/device-layout.md`) and lists what it holds,
/// without reading any form: form folders with owner and state, and `Error/<uid>` files.
///
/// The walk is by descriptors: the root is opened once, and every folder below it with
/// `openat(O_NOFOLLOW | O_DIRECTORY)` and an `fstat` check (``Folder``); what it lists is named by
/// its parts below the root, which the reader opens the same way again. A folder renamed or
/// swapped for a link during the walk can only make an entry be skipped or fail, never make the
/// import read anything outside the tree (docs/security.md).
struct TreeScanner {
    static let completedFolder = "Completed MIs"
    static let errorFolder = "Error"

    struct FormFolder: Sendable {
        let owner: String
        let folderName: String
        let state: FormState
        /// For messages.
        let path: String
        let root: Folder
        /// The folders from the root down to the form folder, its own name last.
        let parts: [String]

        /// The form folder, opened level by level from the root without following a link.
        func open() throws(FileError) -> Folder { try root.walk(parts) }
    }

    struct ErrorFile: Sendable {
        let uid: String
        let path: String
        let root: Folder
        /// `Error`, then the file's name.
        let parts: [String]

        func read(limit: Int) throws(FileError) -> Data {
            try root.walk(parts.dropLast()).readFile(parts.last!, limit: limit)
        }
    }

    var forms: [FormFolder] = []
    var errorFiles: [ErrorFile] = []
    var errors: [ImportIssue] = []
    var warnings: [ImportIssue] = []

    /// Scans the tree at `root`; throws `.invalidInput` when `root` is not a readable directory.
    static func scan(_ root: URL) throws -> TreeScanner {
        // The root is the folder the user named: it may be a link to a folder. Below it, nothing is followed.
        let top: Folder
        do {
            top = try Folder(path: root.path)
        } catch {
            if error.code == ENOTDIR || error.code == ENOENT {
                throw StoreError(.invalidInput, "\(root.path) is not a directory.", path: root.path)
            }
            throw StoreError(.io, "Cannot read the directory \(root.path).", path: root.path)
        }
        var scanner = TreeScanner()
        guard let names = scanner.entries(of: top) else {
            throw StoreError(.io, "Cannot read the directory \(root.path).", path: root.path)
        }
        for entry in names {
            guard let kind = scanner.acceptable(entry, in: top) else { continue }
            if entry == completedFolder, kind == .folder {
                guard let completed = scanner.open(entry, in: top) else { continue }
                for uid in scanner.entries(of: completed) ?? [] {
                    scanner.scanUser(uid, in: completed, root: top, above: [entry], state: .completed)
                }
            } else if entry == errorFolder, kind == .folder {
                guard let errors = scanner.open(entry, in: top) else { continue }
                for uid in scanner.entries(of: errors) ?? [] {
                    let filePath = errors.pathOf(uid)
                    guard let kind = scanner.acceptable(uid, in: errors) else { continue }
                    if kind == .folder {
                        scanner.errors.append(ImportIssue(path: filePath, reason: "a folder, expected an Error file of a user"))
                    } else if scanner.validUid(uid, path: filePath) {
                        scanner.errorFiles.append(ErrorFile(uid: uid.nfc, path: filePath, root: top, parts: [entry, uid]))
                    }
                }
            } else {
                scanner.scanUser(entry, in: top, root: top, above: [], state: .incomplete)
            }
        }
        return scanner
    }

    private mutating func scanUser(_ uid: String, in parent: Folder, root: Folder, above: [String], state: FormState) {
        guard let kind = acceptable(uid, in: parent) else { return }
        let path = parent.pathOf(uid)
        guard kind == .folder else {
            errors.append(ImportIssue(path: path, reason: "a file where a user folder was expected"))
            return
        }
        guard validUid(uid, path: path), let folder = open(uid, in: parent) else { return }
        for name in entries(of: folder) ?? [] {
            guard let kind = acceptable(name, in: folder) else { continue }
            if kind == .folder {
                forms.append(FormFolder(owner: uid.nfc, folderName: name, state: state, path: folder.pathOf(name),
                                        root: root, parts: above + [uid, name]))
            } else {
                errors.append(ImportIssue(path: folder.pathOf(name), reason: "a file where a form folder was expected"))
            }
        }
    }

    /// The folder `name` in `parent`, opened without following a link; nil (and an error) when
    /// it is no longer a folder (swapped during the walk).
    private mutating func open(_ name: String, in parent: Folder) -> Folder? {
        do {
            return try parent.folder(name)
        } catch {
            errors.append(ImportIssue(path: parent.pathOf(name), reason: Self.refusal(error)))
            return nil
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

    /// The sorted entries of a folder, hidden ones (".DS_Store") skipped with a warning;
    /// nil (and an error) when it cannot be read.
    mutating func entries(of folder: Folder) -> [String]? {
        do {
            let names = try folder.entries()
            for hidden in names where hidden.hasPrefix(".") {
                warnings.append(ImportIssue(path: folder.pathOf(hidden), reason: "hidden file ignored"))
            }
            return names.filter { !$0.hasPrefix(".") }
        } catch {
            errors.append(ImportIssue(path: folder.path, reason: "cannot read the folder"))
            return nil
        }
    }

    /// Why the entry of `kind` is not imported (a symbolic link, a device, a pipe, a socket),
    /// or nil for a regular file or a folder. A link is never followed: the tree may come from
    /// somebody else, and a link could make the import read files the tree does not hold.
    static func refusal(_ kind: EntryKind) -> String? {
        switch kind {
        case .folder, .file: return nil
        case .symbolicLink: return "a symbolic link: not followed, skipped"
        case .other: return "not a regular file or folder: skipped"
        case .missing: return "vanished while the tree was read: skipped"
        }
    }

    /// Why a folder or file of the tree could not be opened (a link swapped in, a folder that
    /// vanished or became a file).
    static func refusal(_ error: FileError) -> String {
        switch error.code {
        case ELOOP, ENOTDIR: return "a symbolic link or not a folder (changed while the tree was read): skipped"
        case ENOENT: return "vanished while the tree was read: skipped"
        default: return "cannot read it (\(error.reason))"
        }
    }

    /// Records a refused entry as an error; its kind when it may be imported (folder or file).
    private mutating func acceptable(_ name: String, in folder: Folder) -> EntryKind? {
        let kind = folder.kind(of: name)
        guard let reason = Self.refusal(kind) else { return kind }
        errors.append(ImportIssue(path: folder.pathOf(name), reason: reason))
        return nil
    }
}
