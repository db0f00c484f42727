import CProcess

/// glibc malloc's trim threshold, raised once at start.
///
/// Why: by default glibc hands the top of the heap back to the kernel (`brk`) as soon as more
/// than 128 KiB of it is free, and the dynamic threshold it would raise only grows after an
/// `mmap`ped block is freed. In a script of moves, SQLite's page cache and statement journal grow
/// and free the top of the heap in every transaction: `brk` calls and page faults in every
/// move. With the threshold at 512 KiB the heap keeps that memory for the next transaction
/// (the counts at each threshold tried: docs/benchmarks.md). The price: the process may hold
/// up to 512 KiB more than it uses.
public enum HeapTuning {
    static let trimThreshold: Int32 = 512 << 10

    /// Called first thing in `main`.
    public static func apply() {
        // mallopt returns 0 on failure; the default threshold then stays, which is only slower.
        _ = mi_set_heap_trim_threshold(trimThreshold)
    }
}
