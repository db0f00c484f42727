import Foundation
import GRDB
import MIFiles

/// A SQLite file the console writes for its user (`store copy --to FILE`, `store backup FILE`),
/// in a folder that other users may share.
///
/// SQLite opens files by path, resolves links in it, and makes `-wal`, `-shm` and `-journal`
/// beside the file by path too: handed `/tmp/share/copy.sqlite`, it followed a link planted
/// there into another user's file. So SQLite never gets the user's path. The file is
/// made (or, for `--append`, hard-linked with its `-wal` and `-shm`, `linkat` never following a
/// link) in a new private folder (0700, an unpredictable name, ``Folder/makePrivateFolder(for:)``)
/// under an unpredictable name of its own; SQLite works there; ``finish()`` then links the new file
/// to its real name through the folder's descriptor (refused if the name was taken meanwhile) and
/// removes the private folder. Swapping the private folder for a link can at worst make SQLite
/// create a new file of a name nobody knows somewhere else, and makes ``finish()`` fail.
public final class SQLiteFileTarget {
    public let folder: Folder
    public let name: String
    /// True when the file existed (``prepare(_:append:)`` with an existing file).
    public let existed: Bool
    private let work: Folder
    private let workName: String
    private let inner: String
    private static let companions = ["-wal", "-shm", "-journal"]

    /// The path SQLite is given: the file in the private folder.
    public var sqlitePath: String { work.pathOf(inner) }
    public var path: String { folder.pathOf(name) }

    /// Prepares `path`: a new file, or (`existing: true`) the existing regular file there. A link,
    /// a folder or another kind of file at `path` is refused and left alone.
    public init(_ path: String, existing allowed: Bool) throws {
        do {
            (folder, name) = try Folder.parent(of: path)
        } catch {
            throw StoreError(.io, "Cannot write \(path): \(error.reason).", path: path)
        }
        let display = folder.pathOf(name)
        switch folder.kind(of: name) {
        case .missing: existed = false
        case .file where allowed: existed = true
        case .file: throw StoreError(.invalidInput, "\(display) exists; name a new file.", path: display)
        case .symbolicLink:
            throw StoreError(.invalidInput, "\(display) is a symbolic link: not followed; name the file itself.", path: display)
        case .folder: throw StoreError(.invalidInput, "\(display) is a folder; name a file.", path: display)
        case .other: throw StoreError(.invalidInput, "\(display) is not a regular file.", path: display)
        }
        func failure(_ error: FileError) -> StoreError {
            StoreError(.io, "Cannot write \(display): \(error.doing.map { "\($0): " } ?? "")\(error.reason).", path: display)
        }
        do {
            (work, workName) = try folder.makePrivateFolder(for: name)
        } catch {
            throw failure(error)
        }
        inner = Folder.temporaryName(for: "store", suffix: ".sqlite")
        // From here on, deinit removes the private folder if this throws.
        do {
            if existed {
                for suffix in [""] + Self.companions where folder.kind(of: name + suffix) != .missing {
                    guard linkat(folder.fd, name + suffix, work.fd, inner + suffix, 0) == 0 else {
                        throw FileError(folder.pathOf(name + suffix), errno, doing: "cannot open")
                    }
                    // linkat links a link itself, never its target: checked here, in the private folder.
                    guard work.kind(of: inner + suffix) == .file else {
                        throw FileError(folder.pathOf(name + suffix), ELOOP, doing: "not a regular file")
                    }
                    // Every crew's forms go into it: only into a file the user may add to
                    // (ours in the private folder is its second link).
                    var info = stat()
                    guard fstatat(work.fd, inner + suffix, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                        throw FileError(folder.pathOf(name + suffix), errno, doing: "cannot open")
                    }
                    if let refusal = OwnFileRule.refusal(of: info, names: 2) {
                        throw StoreError(.invalidInput, "\(folder.pathOf(name + suffix)) \(refusal): \(OwnFileRule.notAppended).", path: display)
                    }
                }
            } else {
                // The file is made here, empty, with the user's umask; SQLite then opens what exists.
                try NewFile(in: work, for: inner).commit(as: inner, existing: .keep)
            }
        } catch let error as FileError {
            throw failure(error)
        }
    }

    deinit { cleanUp() }

    /// After SQLite has closed the file: a new file gets its real name (`linkat`: refused when
    /// the name exists by now); an existing one was written in place. The private folder goes.
    public func finish() throws {
        defer { cleanUp() }
        guard !existed else { return }
        guard linkat(work.fd, inner, folder.fd, name, 0) == 0 else {
            let reason = errno == EEXIST ? "it was created meanwhile by somebody else" : String(cString: strerror(errno))
            throw StoreError(.io, "Cannot write \(path): \(reason); nothing was written there.", path: path)
        }
        fsync(folder.fd)
    }

    /// Removes what is in the private folder (links to an existing file's names, SQLite's own
    /// companion files), then the folder.
    private func cleanUp() {
        guard let work = try? folder.folder(workName) else { return }
        for entry in (try? work.entries()) ?? [] { work.remove(entry) }
        folder.remove(workName, folder: true)
    }
}

extension FormStore {
    /// `store backup FILE`: a consistent copy of the SQLite store, page by page through SQLite's
    /// online backup API from one of this process's open connections, into a new file
    /// (``SQLiteFileTarget``). The store's own files are not opened again, so its persistent
    /// `-wal` and `-shm` stay as they are (the sqlite3 shell, as the last connection to close,
    /// deleted them). Other consoles keep reading and writing meanwhile.
    ///
    /// - Throws: `.invalidInput` for a PostgreSQL store (pg_dump is its backup) or an existing
    ///   target; `.io` when the file cannot be written.
    public func backup(to path: String) throws -> Int64 {
        guard let sqlite = engine as? SQLiteEngine else {
            throw StoreError(.invalidInput, "A PostgreSQL store is backed up with pg_dump (docs/install.md): "
                             + "pg_dump -Fc -f FILE 'postgresql://…'.")
        }
        let target = try SQLiteFileTarget(path, existing: false)
        do {
            let copy = try DatabaseQueue(path: target.sqlitePath)
            try sqlite.dbPool.backup(to: copy)
            try copy.close()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.mapping(error, busyTimeout: busyTimeout)
        }
        try target.finish()
        var info = stat()
        _ = fstatat(target.folder.fd, target.name, &info, AT_SYMLINK_NOFOLLOW)
        logger.info("store backed up", metadata: ["to": "\(target.path)"])
        return Int64(info.st_size)
    }
}
