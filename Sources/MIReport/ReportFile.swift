import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing a file the user named without ever leaving half a file there: the content goes to a
/// temporary file in the same folder, which is then moved into place in one step. Without
/// `replace`, an existing file is refused — before any work, and again atomically at the end
/// (`link` fails when the name exists), so a file created meanwhile is not overwritten either.
enum ReportFile {
    static func write<T>(to destination: URL, replace: Bool, _ produce: (_ path: String) throws -> T) throws -> T {
        let path = destination.path
        let folder = destination.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ReportError("cannot write \(path): the folder \(folder) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ReportError("cannot write \(path): it is a folder") }
            if !replace { throw ReportError("\(path) exists; add --force to replace it") }
        }
        var template = Array((folder + "/." + destination.lastPathComponent + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ReportError("cannot write in \(folder): \(String(cString: strerror(errno)))") }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // mkstemp makes the file 0600; a report is an ordinary document (0666 less the umask).
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        close(fd)
        var moved = false
        defer { if !moved { unlink(temporary) } }
        let result = try produce(temporary)
        if replace {
            guard rename(temporary, path) == 0 else {
                throw ReportError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        } else {
            guard link(temporary, path) == 0 else {
                let reason = errno == EEXIST ? "it exists; add --force to replace it" : String(cString: strerror(errno))
                throw ReportError("cannot write \(path): \(reason)")
            }
            unlink(temporary)
        }
        moved = true
        return result
    }
}
