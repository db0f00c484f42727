import Foundation
import GRDBSQLite

/// Copies the store's `-wal` pages into the store file on a connection and thread of its own,
/// so that a run of many changes (a script of moves) does not stop at every checkpoint to
/// write the pages back and sync both files: that wait was a sixth of a script's time
/// (docs/benchmarks.md).
///
/// The rule for when starts as SQLite's: a checkpoint once the `-wal` file holds
/// ``startFrames`` pages. The writer's commit asks for it and goes on, and asks again after
/// each ``stepFrames`` more pages (not at every commit). A checkpoint beside a writer that keeps
/// appending never copies the last page (each one ends with two syncs, as long as several
/// changes take), and SQLite starts the `-wal` file over only when every page in it was
/// copied. So at ``catchUpFrames`` the writer waits for the checkpoint under way and copies
/// the rest itself, appending nothing meanwhile, and its next change starts the file over: the
/// file stays within ``SQLiteEngine/walSizeLimit``.
///
/// The connection opens with the pool's readers where the process is about to lose the right to
/// open the store (``openNow()``), else at the first checkpoint, on the thread. Without it (it
/// could not open) the writer checkpoints by itself at the same points, as SQLite's own hook
/// does at ``startFrames``.
final class WALCheckpointer: @unchecked Sendable {
    /// SQLite's default `wal_autocheckpoint`.
    static let startFrames: Int32 = 1000
    static let catchUpFrames: Int32 = 2 * startFrames
    /// The pages a commit appends past the last checkpoint asked for before it asks for the
    /// next: each one ends with two syncs, not to be spent on a few pages.
    static let stepFrames: Int32 = startFrames / 4

    private let path: String
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var connection: OpaquePointer?
    /// The connection could not open; after ``openNow()`` either this is set or `connection` is,
    /// so the thread never opens it later (the process may have lost the right to).
    private var unavailable = false
    private var requested = false
    private var running = false
    private var stopping = false
    private var thread: Thread?
    private var passesBeside = 0
    private var passesByWriter = 0
    // The writer's alone (its hook runs for one commit at a time): the `-wal` file's pages at
    // the last commit, and at the last checkpoint asked for since the file started over.
    private var framesBefore: Int32 = 0
    private var framesAsked: Int32 = 0
    private let threadEnded = DispatchSemaphore(value: 0)

    init(path: String) {
        self.path = path
    }

    /// Registers ``committed(writer:frames:)`` as the writer connection's WAL hook, which
    /// replaces SQLite's automatic checkpoint on that connection. The pool's
    /// `prepareDatabase` closure holds this object, so it outlives the writer connection.
    func install(on writer: OpaquePointer) {
        sqlite3_wal_hook(writer, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Opens the connection now, while the store may still be opened (``SQLiteEngine/openAllConnections()``).
    func openNow() {
        condition.lock()
        defer { condition.unlock() }
        guard connection == nil, !unavailable else { return }
        open()
    }

    /// After a commit that left `frames` pages in the `-wal` file, on the writer's thread.
    fileprivate func committed(writer: OpaquePointer, frames: Int32) {
        if frames < framesBefore { framesAsked = 0 }
        framesBefore = frames
        guard frames >= Self.startFrames else { return }
        if frames < Self.catchUpFrames && framesAsked > 0 && frames - framesAsked < Self.stepFrames { return }
        framesAsked = frames
        condition.lock()
        if unavailable || frames >= Self.catchUpFrames {
            requested = false
            while running { condition.wait() }
            passesByWriter += 1
            condition.unlock()
            Self.checkpoint(writer)
            return
        }
        requested = true
        if thread == nil {
            let thread = Thread { [self] in run() }
            thread.name = "miadmin.checkpoint"
            self.thread = thread
            thread.start()
        }
        condition.broadcast()
        condition.unlock()
    }

    /// How many checkpoints ran on the checkpointer's connection, and in the writer's commits.
    func passes() -> (beside: Int, byWriter: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (passesBeside, passesByWriter)
    }

    /// Ends the thread (a checkpoint under way finishes first) and closes the connection. The
    /// writer's hook must be gone by then (``SQLiteEngine``'s deinit removes it first).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        let started = thread != nil
        condition.unlock()
        if started { threadEnded.wait() }
        condition.lock()
        if let connection { sqlite3_close_v2(connection) }
        connection = nil
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            while !requested && !stopping { condition.wait() }
            if stopping { break }
            requested = false
            if connection == nil && !unavailable { open() }
            guard let connection else {
                unavailable = true
                condition.broadcast()
                continue
            }
            running = true
            condition.unlock()
            Self.checkpoint(connection)
            condition.lock()
            running = false
            passesBeside += 1
            condition.broadcast()
        }
        condition.unlock()
        threadEnded.signal()
    }

    /// Called with `condition` held. Sets `connection` or `unavailable`. The `-wal` and `-shm`
    /// files are opened by a first read, and kept as the pool's writer keeps them
    /// (``SQLiteEngine/keepWALFiles(_:)``).
    private func open() {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db,
              SQLiteEngine.keepWALFiles(db) == SQLITE_OK,
              sqlite3_exec(db, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK else {
            sqlite3_close_v2(db)
            unavailable = true
            return
        }
        connection = db
    }

    /// A passive checkpoint: it copies what no reader still needs, waits for nobody, and leaves
    /// the rest for the next one. Its errors are SQLite's automatic checkpoint's: not the
    /// commit's, which has succeeded (the pages stay in the `-wal` file for the next one).
    private static func checkpoint(_ db: OpaquePointer) {
        _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}

private let walHook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = {
    context, writer, _, frames in
    if let context, let writer {
        Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(writer: writer, frames: frames)
    }
    return SQLITE_OK
}
