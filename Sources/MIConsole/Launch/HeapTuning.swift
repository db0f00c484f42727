import CProcess

/// glibc malloc's trim threshold, raised once at start.
///
/// Why: by default glibc hands the top of the heap back to the kernel (`brk`) as soon as more
/// than 128 KiB of it is free, and the dynamic threshold it would raise only grows after an
/// `mmap`ped block is freed. In a script of moves, SQLite's page cache and statement journal grow
/// and free the top of the heap in every transaction: four `brk` calls and two page faults per
/// move, 40,000 system calls and 20,000 page faults in 10,000 moves (issue 13's profile,
/// docs/benchmarks.md). With the threshold at 1 MiB (measured: 24 `brk` calls in 1,000 moves;
/// 256 KiB still made 3,944) the heap keeps that memory for the next transaction. The price:
/// the process may hold up to 1 MiB more than it uses, which can show in its peak RSS.
public enum HeapTuning {
    static let trimThreshold: Int32 = 1 << 20

    /// Called first thing in `main`.
    public static func apply() {
        // mallopt returns 0 on failure; the default threshold then stays, which is only slower.
        _ = mi_set_heap_trim_threshold(trimThreshold)
    }
}
