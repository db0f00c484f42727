import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A regular file the console adds to at its end for its user (`\o >>FILE`), created when
/// missing. Opened in a ``Folder`` held by its descriptor with `O_APPEND | O_NOFOLLOW` (a link
/// at the name is refused, never followed) and `O_NONBLOCK` (a FIFO planted there cannot hold
/// the console), then checked with `fstat` on the descriptor: what is written to is what was
/// checked, a regular file, and one the user may add to (``OwnFileRule``: their own, with one
/// name). Unlike ``NewFile`` the writes land in place as they are made, which
/// is what appending asks for. Owns its descriptor and closes it in `deinit`.
public final class AppendingFile {
    public let fd: Int32
    /// For messages.
    public let path: String

    public init(in folder: Folder, name: String, mode: mode_t = 0o666) throws(FileError) {
        try Folder.checkName(name, in: folder)
        path = folder.pathOf(name)
        FilesBegun.one()
        let fd = openat(folder.fd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(folder.pathOf(name), errno, doing: "cannot open the file") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileError(folder.pathOf(name), code, doing: "cannot open the file")
        }
        guard EntryKind(mode: info.st_mode) == .file else {
            close(fd)
            throw FileError(folder.pathOf(name), EINVAL, doing: "not a regular file")
        }
        if let refusal = OwnFileRule.refusal(of: info) {
            close(fd)
            throw FileError(folder.pathOf(name), EPERM, doing: refusal + ": " + OwnFileRule.notAppended)
        }
        // Writes to a regular file do not block; the flag only guarded the open.
        _ = fcntl(fd, F_SETFL, O_WRONLY | O_APPEND)
        self.fd = fd
    }

    deinit { close(fd) }

    /// Everything written so far on disk.
    public func finish() throws(FileError) {
        guard fsync(fd) == 0 else { throw FileError(path, errno, doing: "cannot write") }
    }
}
