import CMallocArenas
import Foundation

/// How many malloc arenas a long-lived host lets glibc make. By default a thread that finds the
/// arenas busy gets one of its own, up to eight a core, and the memory each arena freed stays
/// resident: after a minute of misses at 64 connections on two cores, a server held 82–94 MiB in its
/// default 13 arenas, 82–87 MiB in 4 and 77–79 MiB in 2, for about 0.2 ms more CPU a miss
/// (BENCHMARKS.md, issue 30). An operator's own `MALLOC_ARENA_MAX` or `glibc.malloc.arena_max`
/// tunable wins.
public enum AllocatorArenas {
    /// The limit a host sets: one arena a processor, at least 2; nil when the environment sets one already.
    public static func limit(environment: [String: String], processors: Int) -> Int? {
        if environment["MALLOC_ARENA_MAX"] != nil { return nil }
        if let tunables = environment["GLIBC_TUNABLES"], tunables.contains("glibc.malloc.arena_max") { return nil }
        return min(max(processors, 2), 1024)
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
