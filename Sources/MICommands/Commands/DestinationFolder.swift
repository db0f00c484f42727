import Foundation

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
