import Foundation

/// The shared SQLite store's `-wal` and `-shm`, which must belong to root (docs/security.md), and
/// their spares: two empty root-owned files, `store.sqlite-wal.spare` and `store.sqlite-shm.spare`,
/// that root's `--init-store` leaves beside them.
///
/// A program that is not miadmin and closes the store last without persistent WAL (the sqlite3
/// shell's `.backup`) deletes `-wal` and `-shm`. The setgid console cannot make
/// root-owned files, but it can give a spare a second name: when both files are gone and no
/// process holds the store, ``repairVanished(_:)`` empties a spare and hard-links it as the
/// missing file, which is then root's again. The spare keeps its own name, so the next loss is
/// repaired the same way.
public enum StoreCompanionFiles {
    static let suffixes = ["-wal", "-shm"]

    public static func spare(of path: String, _ suffix: String) -> String { path + suffix + ".spare" }

    /// Root's `--init-store`: makes the missing spares, empty, with the store file's group and mode.
    public static func makeSpares(_ path: String) throws {
        var store = stat()
        guard lstat(path, &store) == 0 else { return }
        for suffix in suffixes {
            let spare = spare(of: path, suffix)
            let fd = open(spare, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw StoreError(.io, "Cannot create \(spare): \(String(cString: strerror(errno))).", path: spare)
            }
            fchown(fd, store.st_uid, store.st_gid)
            fchmod(fd, store.st_mode & 0o777)
            close(fd)
        }
    }

    /// A privileged console, before it checks the store's files: when `-wal` or `-shm` is
    /// missing, no process holds the store (no lock on SQLite's lock bytes of the file), and the
    /// spare is a root-owned regular file, the spare is emptied and linked as the missing file.
    /// Returns the files it made; anything unexpected is left for the check to report.
    @discardableResult
    public static func repairVanished(_ path: String) -> [String] {
        // lstat, not access(2): access checks the real ids, which cannot enter the store's folder.
        let missing = suffixes.filter { suffix in
            var info = stat()
            return lstat(path + suffix, &info) != 0 && errno == ENOENT
        }
        guard !missing.isEmpty, !isHeld(path) else { return [] }
        var repaired: [String] = []
        for suffix in missing {
            let spare = spare(of: path, suffix)
            let fd = open(spare, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == 0, info.st_nlink == 1 else { continue }
            // Stale frames of an old WAL must never be replayed: the spare is emptied first.
            guard ftruncate(fd, 0) == 0, link(spare, path + suffix) == 0 else { continue }
            repaired.append(path + suffix)
        }
        return repaired
    }

    /// True when another process holds a lock on the store's SQLite lock bytes (1 GiB offset:
    /// PENDING, RESERVED and the SHARED range), which every connection to it keeps in WAL mode.
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0000
        lock.l_len = 512
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }
}
