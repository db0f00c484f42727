import Foundation
import MIFiles

/// The folder a new file goes into (`store backup FILE`, `store copy --to FILE`), checked before
/// anything is opened: a folder that is missing, is a file, or is not writable is the user's to
/// fix (exit 1, the folder named), not an I/O failure a timer should try again (exit 2).
enum DestinationFolder {
    static func require(forFile path: String) throws {
        let folder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw CommandError.failed("cannot write into '\(folder)': no such folder")
        }
        guard isFolder.boolValue else {
            throw CommandError.failed("cannot write into '\(folder)': it is a file, not a folder")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw CommandError.failed("cannot write into '\(folder)': permission denied")
        }
    }
}

extension DestinationFolder {
    /// The folder many files go into (`report --dir`, `media --out`), opened once and made if
    /// missing: every file is then created through its descriptor (docs/security.md). In a dry
    /// run a missing folder is not made: nil, and the note says it would be.
    static func open(_ path: String, dryRun: Bool, output: OutputSink) throws -> Folder? {
        do {
            guard dryRun else { return try Folder.creatingIfMissing(path) }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                output.note("dry run: would create the folder '\(path)'")
                return nil
            }
            return try Folder(path: path)
        } catch {
            throw CommandError.failed(error.code == ENOTDIR ? "cannot write into '\(path)': it is a file, not a folder"
                                      : "cannot write into '\(path)': \(error.reason)")
        }
    }

    /// `name` in the folder `path` that a dry run did not make, as ``Folder/pathOf(_:)`` shows it.
    static func path(_ name: String, in path: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }
}
