import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder held open by its descriptor: everything below it is named relative to that
/// descriptor (`openat`, `mkdirat`, `fstatat`, `renameat`), never by a path that is resolved
/// again. A folder renamed, or swapped for a link, after it was opened cannot redirect what is
/// read or written through it (docs/security.md, "Files in shared folders").
///
/// Only the folder the user named is opened by path (following a link there is the user's
/// choice); every folder below it is opened with `O_NOFOLLOW` and checked with `fstat`.
/// Owns its descriptor (close-on-exec) and closes it in `deinit`.
public final class Folder: @unchecked Sendable {
    public let fd: Int32
    /// For messages only: the path it was opened as (and the names below it).
    public let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens the folder at `path` (the user's own naming: a link to a folder is followed).
    public convenience init(path: String) throws(FileError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(path, errno) }
        self.init(fd: fd, path: path)
    }

    /// Opens the folder at `path`, creating it and any missing folder above it first
    /// (`mkdir -p`, with the user's umask).
    public static func creatingIfMissing(_ path: String) throws(FileError) -> Folder {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
                throw FileError(path, code.map(Int32.init) ?? EIO, doing: "cannot create the folder")
            }
        }
        return try Folder(path: path)
    }

    /// The parent folder of `path`, opened, and the last component of `path`.
    public static func parent(of path: String) throws(FileError) -> (folder: Folder, name: String) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let name = url.lastPathComponent
        guard !name.isEmpty, name != "/", name != ".", name != ".." else {
            throw FileError(path, EINVAL, doing: "not a file name")
        }
        return (try Folder(path: url.deletingLastPathComponent().path), name)
    }

    public func pathOf(_ name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// What the entry `name` is, without following a link (`fstatat(AT_SYMLINK_NOFOLLOW)`).
    public func kind(of name: String) -> EntryKind {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        return EntryKind(mode: info.st_mode)
    }

    /// The folder `name` below this one: `openat(O_NOFOLLOW | O_DIRECTORY)`, then `fstat`. A link
    /// fails (ELOOP, or ENOTDIR), so a folder swapped for a link during a walk is skipped.
    public func folder(_ name: String) throws(FileError) -> Folder {
        try Self.checkName(name, in: self)
        let fd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(pathOf(name), errno) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            close(fd)
            throw FileError(pathOf(name), ENOTDIR)
        }
        return Folder(fd: fd, path: pathOf(name))
    }

    /// True when the entry `name` (not followed if a link) is the file or folder open as `fd`:
    /// in a folder others may write, a name can be renamed away and replaced between two steps.
    public func holds(_ name: String, sameAs fd: Int32) -> Bool {
        var open = stat(), named = stat()
        return fstat(fd, &open) == 0 && fstatat(self.fd, name, &named, AT_SYMLINK_NOFOLLOW) == 0
            && open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// The folder reached by opening each of `parts` in turn with ``folder(_:)``: a link or a
    /// swap at any level fails instead of leading elsewhere.
    public func walk<Parts: Collection<String>>(_ parts: Parts) throws(FileError) -> Folder {
        var current = self
        for part in parts { current = try current.folder(part) }
        return current
    }

    /// Creates the folder `name` (mode 0777 less the umask) and opens it; an existing folder is
    /// opened when `existing` is true (never a link: see ``folder(_:)``).
    public func makeFolder(_ name: String, mode: mode_t = 0o777, existing: Bool = false) throws(FileError) -> Folder {
        try Self.checkName(name, in: self)
        FilesBegun.one()
        if mkdirat(fd, name, mode) != 0 && !(errno == EEXIST && existing) {
            throw FileError(pathOf(name), errno, doing: "cannot create the folder")
        }
        return try folder(name)
    }

    /// A new folder of this process's own, 0700, under an unpredictable name: nobody else can
    /// add, remove or replace anything inside it.
    public func makePrivateFolder(for name: String) throws(FileError) -> (folder: Folder, name: String) {
        FilesBegun.one()
        for _ in 0..<100 {
            let temporary = Self.temporaryName(for: name, suffix: ".d")
            if mkdirat(fd, temporary, 0o700) == 0 {
                let folder = try self.folder(temporary)
                var info = stat()
                guard fstat(folder.fd, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
                    throw FileError(pathOf(temporary), EPERM, doing: "not a private folder")
                }
                return (folder, temporary)
            }
            if errno != EEXIST { throw FileError(pathOf(temporary), errno, doing: "cannot create a folder") }
        }
        throw FileError(pathOf(name), EEXIST, doing: "cannot create a folder")
    }

    /// The names in this folder, sorted (`.` and `..` left out).
    public func entries() throws(FileError) -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            let code = errno
            if copy >= 0 { close(copy) }
            throw FileError(path, code, doing: "cannot read the folder")
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The bytes of the regular file `name`, at most `limit` of them: opened with `O_NOFOLLOW`
    /// (a link is refused) and checked with `fstat` on the descriptor, so what is read is what
    /// was checked.
    public func readFile(_ name: String, limit: Int) throws(FileError) -> Data {
        let fd = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(pathOf(name), errno, doing: "cannot read the file") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(pathOf(name), errno, doing: "cannot read the file") }
        let kind = EntryKind(mode: info.st_mode)
        guard kind == .file else { throw FileError(pathOf(name), kind == .folder ? EISDIR : EINVAL, doing: "not a regular file") }
        // EFBIG: `doing` is the size the file had, or nil when it grew past the limit while read.
        guard info.st_size <= limit else { throw FileError(pathOf(name), EFBIG, doing: "\(info.st_size) bytes") }
        do {
            // One byte more than the limit: a file that grew since fstat is caught too.
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else { throw FileError(pathOf(name), EFBIG) }
            return data
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(pathOf(name), EIO, doing: "cannot read the file")
        }
    }

    /// Removes the entry `name` (a file or a link; `folder`: an empty folder). Errors are ignored.
    public func remove(_ name: String, folder: Bool = false) {
        unlinkat(fd, name, folder ? AT_REMOVEDIR : 0)
    }

    /// `.<name>.<16 random hex digits><suffix>`, the name cut so the whole stays within NAME_MAX.
    public static func temporaryName(for name: String, suffix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16)
        var stem = name
        while stem.utf8.count > 200 { stem.removeLast() }
        return ".\(stem).\(String(repeating: "0", count: 16 - random.count) + random)\(suffix)"
    }

    static func checkName(_ name: String, in folder: Folder) throws(FileError) {
        if name.isEmpty || name == "." || name == ".." || name.contains("/") {
            throw FileError(folder.pathOf(name), EINVAL, doing: "not a name in the folder")
        }
    }
}

/// What an entry is, read without following a link.
public enum EntryKind: Sendable, Equatable {
    case folder, file, symbolicLink, other, missing

    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFDIR: self = .folder
        case S_IFREG: self = .file
        case S_IFLNK: self = .symbolicLink
        default: self = .other
        }
    }
}

/// Why a file or folder could not be opened, made or written: the path, the errno and what was
/// being done. The description is one line: `path: what (reason)`.
public struct FileError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let code: Int32
    public let doing: String?

    public init(_ path: String, _ code: Int32, doing: String? = nil) {
        self.path = path
        self.code = code
        self.doing = doing
    }

    /// The system's reason (`strerror`), "a symbolic link" for ELOOP.
    public var reason: String {
        code == ELOOP ? "a symbolic link: not followed" : String(cString: strerror(code))
    }

    public var description: String {
        doing.map { "\(path): \($0) (\(reason))" } ?? "\(path): \(reason)"
    }
}
