import Foundation
import MIDirectory

/// A password kept in a file: the user's `--password-file`, the service account's
/// `ldap.bindPasswordFile` (and, later, a store password file). One reader for all of them, so
/// they follow the same rules:
///
/// - the first line only (up to the first LF or CR), as docs/configuration.md promises;
/// - a regular file, opened without following a symlink at its last component, at most 64 KiB;
/// - who else may read it is reported (``readableByGroup``, ``readableByOthers``), so the caller
///   can warn (a user's file) or refuse (the service password in a privileged run).
///
/// The bytes live in one buffer that ``wipe()`` overwrites with zeros once the bind is done.
public struct SecretFile: Sendable {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    /// The first line of the file, without its line end.
    public private(set) var bytes: [UInt8]
    /// Permission bits of the file (`st_mode & 0o7777`).
    public let mode: mode_t
    /// The file's group.
    public let groupID: gid_t

    public var readableByGroup: Bool { mode & 0o040 != 0 }
    public var readableByOthers: Bool { mode & 0o004 != 0 }

    static let sizeLimit = 64 * 1024

    /// Reads the file with the process's current rights. The failure message names the path and
    /// the reason, never the content.
    public static func read(_ path: String) throws(Failure) -> SecretFile {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw Failure(description: "cannot read the password file '\(path)': \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(description: "cannot read the password file '\(path)': not a regular file")
        }
        guard info.st_size <= sizeLimit else {
            throw Failure(description: "cannot read the password file '\(path)': larger than 64 KiB")
        }
        var buffer = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < buffer.count {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                wipe(&buffer)
                throw Failure(description: "cannot read the password file '\(path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
        }
        let end = buffer[..<count].firstIndex { $0 == 10 || $0 == 13 } ?? count
        let line = Array(buffer[..<end])
        wipe(&buffer)
        return SecretFile(path: path, bytes: line, mode: info.st_mode & 0o7777, groupID: info.st_gid)
    }

    /// Overwrites the password with zeros and empties it.
    public mutating func wipe() {
        Self.wipe(&bytes)
        bytes = []
    }

    /// Overwrites `buffer` in place with zeros (``SecretBytes/wipe(_:)``).
    public static func wipe(_ buffer: inout [UInt8]) {
        SecretBytes.wipe(&buffer)
    }

    /// The warning for a password file others can read, or nil.
    public var loosePermissionsWarning: String? {
        guard readableByGroup || readableByOthers else { return nil }
        return "the password file '\(path)' is readable by \(readableByOthers ? "other users" : "its group") "
            + "(mode \(String(mode, radix: 8))); make it private: chmod 600 '\(path)'"
    }
}
