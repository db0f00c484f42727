import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which existing file the console takes as its user's: a regular file of their own that no other
/// name reaches. It adds only to such a file (`\o >>FILE`, `store copy --append`): one another
/// user planted in a shared folder (0666 in a sticky `/tmp`) would hand them what is written, a
/// hard link to somebody's file would change it under a name they never gave. And it counts
/// only such a file as work already done (`report --skip-existing`).
public enum OwnFileRule {
    /// Why the file `info` describes is not the user's own, or nil when it is. `names`: how many
    /// names the caller's own handling gave it (a private second link counts as one more).
    public static func refusal(of info: stat, names: nlink_t = 1) -> String? {
        if info.st_uid != getuid() { return "belongs to another user" }
        if info.st_nlink > names { return "has more than one name (a hard link)" }
        return nil
    }

    /// What a refused file is told when asked to be added to.
    public static let notAppended = "not appended to; name a file of your own with one name"
}

extension Folder {
    /// Whether `name` holds a file of the user's own (``OwnFileRule``) that begins with `prefix`:
    /// false when nothing is there; throws, naming why, for anything else there (a symbolic link,
    /// which is never followed, another user's file, a FIFO, a folder, other content). Opened
    /// with `O_NOFOLLOW | O_NONBLOCK` and checked on the descriptor: what is judged is what is
    /// read.
    public func holdsOwnFile(_ name: String, beginningWith prefix: [UInt8]) throws(FileError) -> Bool {
        try Folder.checkName(name, in: self)
        let fd = openat(self.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return false }
            throw FileError(pathOf(name), code, doing: "cannot open")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(pathOf(name), errno, doing: "cannot open") }
        guard EntryKind(mode: info.st_mode) == .file else { throw FileError(pathOf(name), EINVAL, doing: "not a regular file") }
        if let refusal = OwnFileRule.refusal(of: info) { throw FileError(pathOf(name), EPERM, doing: refusal) }
        var head = [UInt8](repeating: 0, count: prefix.count)
        let read = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, prefix.count, 0) }
        guard read == prefix.count, head == prefix else { throw FileError(pathOf(name), EINVAL, doing: "other content than expected") }
        return true
    }
}
