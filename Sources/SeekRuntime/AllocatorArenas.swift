import CMallocArenas
import Foundation

/// How many malloc arenas a long-lived host lets glibc make. By default a thread that finds the
/// arenas busy gets one of its own, up to eight a core, and the memory each arena freed stays
/// resident: after a minute of misses at 64 connections on two cores, a server held 90–96 MiB in
/// its default 13–14 arenas and 81–87 MiB in 4, for 0.2–0.4 ms more CPU a miss; 2 arenas kept no
/// less and served cached searches 10 % slower than 4 (BENCHMARKS.md, issue 30). An operator's own
/// `MALLOC_ARENA_MAX` or `glibc.malloc.arena_max` tunable wins.
public enum AllocatorArenas {
    /// The limit a host sets: two arenas a processor; nil when the environment sets one already.
    public static func limit(environment: [String: String], processors: Int) -> Int? {
        if environment["MALLOC_ARENA_MAX"] != nil { return nil }
        if let tunables = environment["GLIBC_TUNABLES"], tunables.contains("glibc.malloc.arena_max") { return nil }
        return 2 * min(max(processors, 1), 512)
    }

    /// Sets `limit` for this process; the limit set, or nil (one set by the environment, or a C library
    /// without arenas). Call it first in `main`: arenas made before it stay.
    @discardableResult
    public static func bound(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        processors: Int = ProcessInfo.processInfo.activeProcessorCount
    ) -> Int? {
        guard let limit = limit(environment: environment, processors: processors), let count = Int32(exactly: limit) else { return nil }
        return seek_set_malloc_arena_max(count) == 1 ? limit : nil
    }
}
