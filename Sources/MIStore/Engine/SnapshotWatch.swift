import Foundation

/// How long one read snapshot of a SQLite store has been open, against `limits.snapshotSeconds`.
/// A reader's snapshot keeps every checkpoint from finishing past it, so while one read lasts
/// (a listing stepped slowly, a command that reads for minutes) the `-wal` file grows with every
/// other console's changes. A session that has only read gives up its snapshot between commands
/// (``FormStore/endSessionReadSnapshot()``); within one command, a read older than the limit
/// ends at its next statement or row with ``StoreError/Kind-swift.struct/snapshotTooOld``. A
/// write transaction is not watched: it holds the write lock, which the busy timeout bounds for
/// the others.
struct SnapshotWatch {
    /// The default of `limits.snapshotSeconds`.
    static let defaultSeconds: TimeInterval = 60

    let limit: TimeInterval
    private let started = DispatchTime.now().uptimeNanoseconds

    init(limit: TimeInterval) { self.limit = limit }

    func check() throws {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        guard seconds > limit else { return }
        throw StoreError(.snapshotTooOld,
            "this command read the store for \(Int(seconds)) s in one snapshot, longer than the \(Int(limit)) s allowed "
            + "(limits.snapshotSeconds in the config): it was ended, so that other consoles' changes can be written back "
            + "to the store file; narrow it (--owner, --state, --limit) or read its output as it comes")
    }
}
