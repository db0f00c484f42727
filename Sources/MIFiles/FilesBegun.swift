import Synchronization

/// How many files and folders this process has begun for its user so far (``NewFile``,
/// ``AppendingFile``, ``Folder/makeFolder(_:mode:existing:)``): nothing outside the store is
/// rolled back with it, so a run that may be run again from the start (an `--atomic` run whose
/// transaction the store lost) compares this count before and after an attempt, and is not run
/// again once it changed.
public enum FilesBegun {
    private static let counter = Atomic<Int>(0)

    public static var count: Int { counter.load(ordering: .relaxed) }

    static func one() { counter.add(1, ordering: .relaxed) }
}
