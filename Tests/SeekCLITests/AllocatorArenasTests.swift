import SeekRuntime
import Testing

/// The long-lived hosts bound glibc's malloc arenas, unless the operator already did.
@Suite("Allocator arenas of a long-lived host")
struct AllocatorArenasTests {
    @Test("the limit is two arenas a processor, at least 2, and bounded for absurd processor counts", arguments: [
        (1, 2), (2, 4), (16, 32), (0, 2), (-5, 2), (Int.min, 2), (Int.max, 1024),
    ])
    func limitFollowsProcessors(_ processors: Int, _ expected: Int) {
        #expect(AllocatorArenas.limit(environment: [:], processors: processors) == expected)
    }

    @Test("an operator's MALLOC_ARENA_MAX or glibc.malloc.arena_max tunable wins: no limit is set", arguments: [
        ["MALLOC_ARENA_MAX": "8"],
        ["MALLOC_ARENA_MAX": ""],
        ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=3"],
    ])
    func environmentWins(_ environment: [String: String]) {
        #expect(AllocatorArenas.limit(environment: environment, processors: 2) == nil)
        #expect(AllocatorArenas.bound(environment: environment, processors: 2) == nil)
    }

    @Test("other glibc tunables do not count as an arena limit")
    func otherTunables() {
        #expect(AllocatorArenas.limit(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"], processors: 3) == 6)
    }

    #if os(Linux) && canImport(Glibc)
    @Test("on glibc the limit is set")
    func setOnGlibc() {
        // A limit above glibc's default (eight arenas a core), so this test process is not slowed.
        #expect(AllocatorArenas.bound(environment: [:], processors: 512) == 1024)
    }
    #endif
}
