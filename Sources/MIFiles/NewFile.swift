import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one way the console creates a file for its user (media, report, export, `--ics`,
/// history, a SQLite store copy): in a ``Folder`` held open by its descriptor, under an
/// unpredictable temporary name opened with `O_CREAT | O_EXCL | O_NOFOLLOW` (nothing planted
/// there beforehand is opened), written only through that descriptor, `fsync`ed, and then
/// moved to its real name with `renameat` (or `linkat`, to keep an existing file), which never
/// follows a link at the real name. Until ``commit(as:existing:)`` the real name is untouched;
/// a file never committed is removed in `deinit`.
///
/// The mode is 0666 less the process's umask, which is the user's own while user files are
/// written (docs/security.md): with umask 077 the file is 0600.
public final class NewFile {
    public let folder: Folder
    public let fd: Int32
    /// The temporary name in ``folder``, until committed.
    public let temporaryName: String
    private var committed = false
    private var closed = false

    /// What ``commit(as:existing:)`` does with an entry already at the real name.
    public enum Existing: Sendable {
        /// Refused (the new file is discarded): `report` without `--force`, `export` files.
        case keep
        /// A regular file is replaced in one step; a folder, a link or any other kind of file
        /// is refused and left alone.
        case replaceFile
    }

    /// Creates the temporary file for `name` in `folder`.
    public init(in folder: Folder, for name: String, mode: mode_t = 0o666) throws(FileError) {
        try Folder.checkName(name, in: folder)
        FilesBegun.one()
        for _ in 0..<100 {
            let temporary = Folder.temporaryName(for: name, suffix: ".tmp")
            let fd = openat(folder.fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 {
                self.folder = folder
                self.fd = fd
                temporaryName = temporary
                return
            }
            if errno != EEXIST { throw FileError(folder.pathOf(name), errno, doing: "cannot create the file") }
        }
        throw FileError(folder.pathOf(name), EEXIST, doing: "cannot create the file")
    }

    deinit {
        if !closed { close(fd) }
        if !committed { folder.remove(temporaryName) }
    }

    /// The path of the temporary file, for messages.
    public var temporaryPath: String { folder.pathOf(temporaryName) }

    /// Appends `bytes` (all of them: short writes and EINTR are retried).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FileError(temporaryPath, errno, doing: "cannot write")
            }
            offset += written
        }
    }

    public func write(_ data: Data) throws(FileError) {
        // Not a typed-throws closure: Swift 6.3.1's IR generation crashed on one here.
        var failure: FileError?
        data.withUnsafeBytes { raw in
            do throws(FileError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// `fsync`, close, then give the file its real name `name` in the same folder.
    public func commit(as name: String, existing: Existing) throws(FileError) {
        try Folder.checkName(name, in: folder)
        guard fsync(fd) == 0 else { throw FileError(temporaryPath, errno, doing: "cannot write") }
        // The temporary name must still be this file: in a folder others may write, it could
        // have been renamed away and replaced (by a link, say), and that is not moved into place.
        guard folder.holds(temporaryName, sameAs: fd) else {
            throw FileError(temporaryPath, ESTALE, doing: "the temporary file was replaced by somebody else; nothing written")
        }
        closed = true
        guard close(fd) == 0 else { throw FileError(temporaryPath, errno, doing: "cannot write") }
        let target = folder.pathOf(name)
        switch existing {
        case .keep:
            // linkat fails when the name exists, whatever it is (a link is not followed).
            guard linkat(folder.fd, temporaryName, folder.fd, name, 0) == 0 else {
                throw FileError(target, errno, doing: errno == EEXIST ? "exists" : "cannot write")
            }
            folder.remove(temporaryName)
        case .replaceFile:
            switch folder.kind(of: name) {
            case .file, .missing: break
            case .folder: throw FileError(target, EISDIR, doing: "is a folder")
            case .symbolicLink: throw FileError(target, ELOOP, doing: "not replaced")
            case .other: throw FileError(target, EINVAL, doing: "not a regular file: not replaced")
            }
            // renameat replaces the entry itself: a link swapped in after the check above is
            // replaced, never followed; a folder swapped in makes it fail.
            guard renameat(folder.fd, temporaryName, folder.fd, name) == 0 else {
                throw FileError(target, errno, doing: "cannot write")
            }
        }
        committed = true
    }
}
