import CProcess

/// glibc malloc's trim threshold, raised once at start.
///
/// Why: by default glibc hands the top of the heap back to the kernel (`brk`) as soon as more
/// than 128 KiB of it is free, and the dynamic threshold it would raise only grows after an
/// `mmap`ped block is freed. In a script of moves, SQLite's page cache and statement journal grow
/// and free the top of the heap in every transaction: four `brk` calls and two page faults per
/// move, 40,000 system calls and 20,000 page faults in 10,000 moves (issue 13's profile,
/// docs/benchmarks.md). With the threshold at 512 KiB the heap keeps that memory for the next
/// transaction (measured in 1,000 moves: 4,008 `brk` calls by default, 3,944 at 256 KiB, 25 at
/// 384 KiB, 24 at 512 KiB and at 1 MiB). The price: the process may hold up to 512 KiB more
/// than it uses (the peak RSS of a 1,000,000-form listing did not move measurably).
public enum HeapTuning {
    static let trimThreshold: Int32 = 512 << 10

    /// Called first thing in `main`.
    public static func apply() {
        // mallopt returns 0 on failure; the default threshold then stays, which is only slower.
        _ = mi_set_heap_trim_threshold(trimThreshold)
    }
}
