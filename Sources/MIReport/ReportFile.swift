import Foundation
import MIFiles

/// Writing a report the user named without ever leaving half a file there, and without ever
/// opening a path cairo or anyone else could be redirected through: the PDF goes into a
/// ``NewFile`` (an unpredictable temporary name in the folder, opened `O_EXCL | O_NOFOLLOW`
/// through the folder's descriptor), which cairo fills through a write callback, and which is
/// then moved into place. Without `replace`, an existing file is refused — before any work, and
/// again atomically at the end (`linkat` fails when the name exists), so a file created
/// meanwhile is not overwritten either.
enum ReportFile {
    static func write<T>(to destination: URL, replace: Bool, _ produce: (NewFile) throws -> T) throws -> T {
        let opened = try parent(of: destination)
        return try write(opened.name, in: opened.folder, replace: replace, produce)
    }

    /// The folder `destination` goes into, opened, and its name there.
    static func parent(of destination: URL) throws -> (folder: Folder, name: String) {
        do {
            return try Folder.parent(of: destination.path)
        } catch {
            throw ReportError("cannot write \(destination.path): the folder \(destination.deletingLastPathComponent().path) "
                              + "cannot be opened (\(error.reason))")
        }
    }

    /// Refuses what is at `name` before any work: a folder, a link, or a file without `replace`.
    static func check(_ name: String, in folder: Folder, replace: Bool) throws {
        let path = folder.pathOf(name)
        switch folder.kind(of: name) {
        case .folder: throw ReportError("cannot write \(path): it is a folder")
        case .symbolicLink: throw ReportError("cannot write \(path): it is a symbolic link (not replaced)")
        case .file where !replace: throw ReportError("\(path) exists; add --force to replace it")
        default: break
        }
    }

    static func write<T>(_ name: String, in folder: Folder, replace: Bool, _ produce: (NewFile) throws -> T) throws -> T {
        let path = folder.pathOf(name)
        try check(name, in: folder, replace: replace)
        do {
            let file = try NewFile(in: folder, for: name)
            let result = try produce(file)
            try file.commit(as: name, existing: replace ? .replaceFile : .keep)
            return result
        } catch let error as FileError where error.code == EEXIST && error.doing == "exists" {
            throw ReportError("cannot write \(path): it exists; add --force to replace it")
        } catch let error as FileError {
            throw ReportError("cannot write \(path): \(error.doing.map { "\($0): " } ?? "")\(error.reason)")
        }
    }
}
