import Foundation
import PostgresNIO
import SeekCore
@testable import SeekPostgres
import SeekResilience
import SeekStore
import Testing

@Suite("SEEK_DATABASE_URL")
struct DatabaseURLTests {
    @Test("a full URL gives its user, password, host, port and database, and is shown without the password")
    func fullURL() throws {
        let url = try DatabaseURL("postgres://seek:s%40cret@db.example:6543/seekdb?sslmode=disable")
        #expect(url.configuration.username == "seek")
        #expect(url.configuration.password == "s@cret")
        #expect(url.configuration.host == "db.example")
        #expect(url.configuration.port == 6543)
        #expect(url.configuration.database == "seekdb")
        #expect(url.redacted == "postgres://seek@db.example:6543/seekdb")
        #expect(!url.redacted.contains("cret"))
    }

    @Test("postgresql:// is accepted and the port defaults to 5432")
    func defaults() throws {
        let url = try DatabaseURL("postgresql://me@localhost/db")
        #expect(url.configuration.port == 5432)
        #expect(url.configuration.password == nil)
    }

    @Test("?host=/dir connects through the Unix socket in that folder")
    func socketFolder() throws {
        let url = try DatabaseURL("postgres://postgres@/seek?host=/tmp/pg&port=5544")
        #expect(url.configuration.unixSocketPath == "/tmp/pg/.s.PGSQL.5544")
        #expect(url.configuration.host == nil)
    }

    @Test("a URL that is not postgres://, a port out of range or an unknown sslmode is a configuration error",
          arguments: [
            "mysql://u@h/db", "not a url", "", "postgres://u@h:0/db", "postgres://u@h:70000/db",
            "postgres://u@h/db?port=99999999999999999999", "postgres://u@h/db?port=-1", "postgres://u@h/db?sslmode=sometimes",
            "postgres://u@h/a/b",
          ])
    func rejected(_ text: String) {
        #expect(throws: SeekError.self) { try DatabaseURL(text) }
    }

    @Test("a password never appears in what the database is called in messages")
    func noPasswordInMessages() throws {
        let database = try SharedDatabase(url: "postgres://seek:hunter2@127.0.0.1:1/seek")
        #expect(!database.location.contains("hunter2"))
    }
}

@Suite("The shared database when PostgreSQL cannot be reached")
struct UnreachableDatabaseTests {
    /// A port nothing listens on: connections are refused at once (a killed server).
    static let refused = "postgres://postgres@127.0.0.1:1/seek?sslmode=disable"

    @Test("a favourite write fails with a StoreError naming the operation, and is not acknowledged")
    func favouriteWriteFails() async throws {
        let database = try SharedDatabase(url: Self.refused)
        let store = PostgresFavoritesStore(database: database)
        let favorite = Favorite(id: ItemID(provider: "openlibrary", value: "OL1W"), kind: .book, title: "Quiet", addedAt: Date())
        await #expect(throws: StoreError.self) { try await store.add(favorite) }
        #expect(database.isReachable == false)
        await database.close()
    }

    @Test("once the database failed, calls fail at once instead of waiting again")
    func breakerFailsFast() async throws {
        let database = try SharedDatabase(url: Self.refused)
        _ = try? await database.run("first") { client in try await client.perform("SELECT 1") }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<100 {
            _ = try? await database.run("later") { client in try await client.perform("SELECT 1") }
        }
        #expect(clock.now - start < .milliseconds(200))
        await database.close()
    }

    @Test("a hung server (accepts, never answers) costs one call its deadline, then nothing")
    func hungServer() async throws {
        let listener = try SilentListener()
        let database = try SharedDatabase(url: "postgres://postgres@127.0.0.1:\(listener.port)/seek?sslmode=disable")
        let clock = ContinuousClock()
        var start = clock.now
        await #expect(throws: StoreError.self) {
            try await database.run("first", timeout: .milliseconds(100)) { client in try await client.perform("SELECT 1") }
        }
        let first = clock.now - start
        // A first call also waits for the schema, a second at most (more on a busy machine): never
        // the 15 s a migration may take.
        #expect(first < .seconds(5), "the first call took \(first)")
        start = clock.now
        for _ in 0..<50 {
            _ = try? await database.run("later") { client in try await client.perform("SELECT 1") }
        }
        #expect(clock.now - start < .milliseconds(100))
        await database.close()
        listener.close()
    }

    @Test("breakers fall back to the instance's own state: a 429 still opens the breaker")
    func breakerFallback() async throws {
        let database = try SharedDatabase(url: Self.refused)
        let store = PostgresBreakerStore(database: database, fallback: FileBreakerStore(directory: nil))
        let key = "openlibrary@fallback-\(UUID().uuidString)"
        #expect(await store.admit(key, policy: BreakerPolicy()) == .allow)
        await store.record(key, outcome: .failure(reason: "rate limited", retryAfter: 60, rateLimited: true), probe: false, policy: BreakerPolicy())
        guard case .reject = await store.admit(key, policy: BreakerPolicy()) else {
            Issue.record("the fallback breaker should refuse calls after a 429")
            return
        }
        await database.close()
    }

    @Test("rate limits fall back to this instance's share of the limit")
    func rateLimitFallback() async throws {
        let database = try SharedDatabase(url: Self.refused)
        let store = PostgresRateLimitStore(database: database)
        let key = "fallback-\(UUID().uuidString)"
        let limit = RateLimit(requests: 4, per: .seconds(1), burst: 4)
        var granted = 0
        for _ in 0..<10 {
            if case .granted(let wait) = await store.reserve(key, limit: limit, maxWait: 0), wait == 0 { granted += 1 }
        }
        // Alone (one instance seen), the share is the whole burst of 4.
        #expect(granted == 4)
        await database.close()
    }

    @Test("cursor tokens still work on the instance that handed them out")
    func cursorFallback() async throws {
        let database = try SharedDatabase(url: Self.refused)
        let store = PostgresCursorStore(database: database)
        let cursor = SearchCursor(positions: ["openlibrary": "20"], page: 2)
        let token = await store.token(for: cursor)
        #expect(await store.cursor(for: token) == cursor)
        await database.close()
    }
}

/// A TCP port that accepts connections and never says a word: a PostgreSQL stopped with SIGSTOP.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SeekError(.network, detail: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            _ = Glibc.close(fd)
            throw SeekError(.network, detail: "bind/listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}

@Suite("The shared database on a real PostgreSQL", .enabled(if: TestDatabase.url != nil, TestDatabase.skipReason), .serialized)
struct SharedDatabaseTests {
    @Test("two instances starting at once on an empty database migrate it once")
    func concurrentMigration() async throws {
        let url = try await TestDatabase.fresh("migrate")
        let instances = try (0..<4).map { _ in try SharedDatabase(url: url, coordinationTimeout: .seconds(2)) }
        await withTaskGroup(of: Void.self) { group in
            for instance in instances { group.addTask { await instance.prepare(announce: false) } }
        }
        for instance in instances { #expect(instance.isReachable == true) }
        let versions = try await instances[0].run("read versions") { client in
            var found: [Int] = []
            for try await version in try await client.query("SELECT version FROM seek_schema ORDER BY version").decode(Int.self) {
                found.append(version)
            }
            return found
        }
        #expect(versions == Schema.migrations.map(\.version))
        for instance in instances { await instance.close() }
    }

    @Test("a long-lived instance announces itself and counts the instances alive")
    func heartbeat() async throws {
        let url = try await TestDatabase.fresh("heartbeat")
        let first = try await TestDatabase.connect(url)
        let second = try await TestDatabase.connect(url)
        await first.prepare(announce: true)
        // Two announcements at the same moment may each miss the other's uncommitted row (the next
        // beat, 10 s on, counts both): the second announces once the first's row is in the table.
        var announced = 0
        for _ in 0..<100 where announced < 1 {
            try await Task.sleep(for: .milliseconds(20))
            announced = try await first.run("count announcements") { client in
                try await client.query("SELECT count(*)::integer FROM seek_instance").first(Int.self) ?? 0
            }
        }
        #expect(announced == 1)
        await second.prepare(announce: true)
        var seen = 0
        for _ in 0..<100 where seen < 2 {
            try await Task.sleep(for: .milliseconds(20))
            seen = second.liveInstances
        }
        // The second announced after the first and counted both.
        #expect(seen == 2)
        await first.close()
        await second.close()
    }
}

@Suite("Shared user state on a real PostgreSQL", .enabled(if: TestDatabase.url != nil, TestDatabase.skipReason), .serialized)
struct SharedUserStateTests {
    static func favorite(_ value: String, at seconds: Double = 1_700_000_000) -> Favorite {
        Favorite(
            id: ItemID(provider: "openlibrary", value: value), kind: .book, title: "Title \(value)", creators: ["A. Writer"],
            imageURL: URL(string: "https://covers.example/\(value).jpg"), addedAt: Date(timeIntervalSince1970: seconds))
    }

    @Test("a favourite added through one instance is listed by another, newest first, once")
    func favouritesShared() async throws {
        let url = try await TestDatabase.fresh("favourites")
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let first = PostgresFavoritesStore(database: one)
        let second = PostgresFavoritesStore(database: two)
        #expect(try await first.add(Self.favorite("OL1W", at: 1)))
        #expect(try await second.add(Self.favorite("OL2W", at: 2)))
        #expect(try await second.add(Self.favorite("OL1W", at: 3)) == false)
        let listed = try await second.all()
        #expect(listed.map(\.id.value) == ["OL2W", "OL1W"])
        #expect(listed.last == Self.favorite("OL1W", at: 1))
        #expect(try await first.remove(ItemID(provider: "openlibrary", value: "OL2W")))
        #expect(try await second.remove(ItemID(provider: "openlibrary", value: "OL2W")) == false)
        #expect(try await second.favorite(ItemID(provider: "openlibrary", value: "OL2W")) == nil)
        await one.close()
        await two.close()
    }

    @Test("each owner's favourites are their own")
    func favouritesPerOwner() async throws {
        let database = try await TestDatabase.open("owners")
        let owner = PostgresFavoritesStore(database: database)
        let visitor = PostgresFavoritesStore(database: database, owner: "visitor-1")
        try await visitor.add(Self.favorite("OL9W"))
        #expect(try await owner.all().isEmpty)
        #expect(try await visitor.all().count == 1)
        await database.close()
    }

    @Test("history is one list across instances: a repeated query moves to the top, the newest `limit` kept")
    func historyShared() async throws {
        let url = try await TestDatabase.fresh("history")
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let first = PostgresHistoryStore(database: one, limit: 3)
        let second = PostgresHistoryStore(database: two, limit: 3)
        try await first.record(query: "Dune", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await second.record(query: "harbor", providers: ["aladin"], at: Date(timeIntervalSince1970: 2))
        try await first.record(query: "  DUNE ", providers: ["openlibrary", "aladin"], at: Date(timeIntervalSince1970: 3))
        try await second.record(query: "cat", providers: ["giphy"], at: Date(timeIntervalSince1970: 4))
        try await first.record(query: "river", providers: ["giphy"], at: Date(timeIntervalSince1970: 5))
        let entries = try await second.entries()
        #expect(entries.map(\.query) == ["river", "cat", "DUNE"])
        #expect(entries.last?.providers == ["openlibrary", "aladin"])
        try await second.clear()
        #expect(try await first.entries().isEmpty)
        await one.close()
        await two.close()
    }

    @Test("visitors unseen for the lifetime lose their whole history; recent visitors and the owner keep theirs")
    func forgetVisitors() async throws {
        let database = try await TestDatabase.open("visitors")
        let owner = PostgresHistoryStore(database: database)
        let old = PostgresHistoryStore(database: database, owner: StateOwner.visitor("old").key)
        let recent = PostgresHistoryStore(database: database, owner: StateOwner.visitor("recent").key)
        try await owner.record(query: "ancient", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await old.record(query: "x", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await old.record(query: "y", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 2))
        try await recent.record(query: "z", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 1))
        try await recent.record(query: "w", providers: ["openlibrary"], at: Date(timeIntervalSince1970: 100))
        #expect(try await owner.forgetVisitors(unseenSince: Date(timeIntervalSince1970: 50)) == 2)
        #expect(try await old.entries().isEmpty)
        #expect(try await recent.entries().map(\.query) == ["w", "z"])
        #expect(try await owner.entries().map(\.query) == ["ancient"])
        await database.close()
    }

    @Test("a cached answer stored by one instance is read by another; pruning drops the old ones")
    func responseCacheShared() async throws {
        let url = try await TestDatabase.fresh("cache")
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let writer = PostgresResponseCache(database: one)
        let reader = PostgresResponseCache(database: two)
        let body = Data((0..<2048).map { UInt8($0 % 251) })
        let entry = CacheEntry(key: "search|openlibrary|dune", provider: "openlibrary", kind: .search, body: body, storedAt: Date(timeIntervalSince1970: 1_000))
        try await writer.store(entry)
        #expect(try await reader.entry(forKey: entry.key) == entry)
        #expect(try await reader.entry(forKey: "absent") == nil)
        #expect(try await reader.removeEntries(storedBefore: Date(timeIntervalSince1970: 1_001)) == 1)
        #expect(try await reader.entry(forKey: entry.key) == nil)
        await one.close()
        await two.close()
    }

    @Test("the shared cache forgets its oldest answers past its byte bound, whichever instance stored them")
    func responseCacheBound() async throws {
        let url = try await TestDatabase.fresh("cachebound")
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let caches = [PostgresResponseCache(database: one), PostgresResponseCache(database: two)]
        for index in 0..<6 {
            let body = Data((0..<1_000).map { UInt8(($0 + index) % 251) })
            try await caches[index % 2].store(CacheEntry(
                key: "search|openlibrary|q\(index)", provider: "openlibrary", kind: .search, body: body,
                storedAt: Date(timeIntervalSince1970: 1_000 + Double(index))))
        }
        #expect(try await caches[0].removeEntries(beyondBytes: 6_000) == 0)
        #expect(try await caches[1].removeEntries(beyondBytes: 2_500) == 4)
        #expect(try await caches[0].entry(forKey: "search|openlibrary|q3") == nil)
        #expect(try await caches[0].entry(forKey: "search|openlibrary|q4") != nil)
        #expect(try await caches[1].entry(forKey: "search|openlibrary|q5") != nil)
        #expect(try await caches[1].removeEntries(beyondBytes: -1) == 2)
        #expect(try await caches[0].entry(forKey: "search|openlibrary|q5") == nil)
        await one.close()
        await two.close()
    }

    @Test("storing past the shared cache's bound trims it to seven eighths, the newest answers kept")
    func responseCacheStoreBounds() async throws {
        let url = try await TestDatabase.fresh("cachestorebound")
        let database = try await TestDatabase.connect(url)
        let cache = PostgresResponseCache(database: database, diskLimitBytes: 16_000)
        let now = Date().timeIntervalSince1970
        // 2,000 bytes each, an eighth of the bound: every store checks it.
        for index in 0..<9 {
            try await cache.store(CacheEntry(
                key: "k\(index)", provider: "openlibrary", kind: .search, body: Data(count: 2_000),
                storedAt: Date(timeIntervalSince1970: now + Double(index) / 100)))
        }
        #expect(try await cache.entry(forKey: "k1") == nil)
        #expect(try await cache.entry(forKey: "k2") != nil)
        #expect(try await cache.removeEntries(beyondBytes: 14_000) == 0)
        #expect(try await cache.removeEntries(beyondBytes: 13_999) == 1)
        await database.close()
    }

    @Test("a cursor token handed out by one instance is understood by another")
    func cursorsShared() async throws {
        let url = try await TestDatabase.fresh("cursors")
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let cursor = SearchCursor(positions: ["openlibrary": "20", "aladin": "2"], page: 2, seen: [1, 2, 3])
        let token = await PostgresCursorStore(database: one).token(for: cursor)
        #expect(token.count == 22)
        #expect(await PostgresCursorStore(database: two).cursor(for: token) == cursor)
        #expect(await PostgresCursorStore(database: two).cursor(for: "not-a-token") == nil)
        #expect(await PostgresCursorStore(database: two).cursor(for: String(repeating: "x", count: 100_000)) == nil)
        await one.close()
        await two.close()
    }

    @Test("importing the same favourites and history twice adds them once")
    func importTwice() async throws {
        let database = try await TestDatabase.open("import")
        let favorites = PostgresFavoritesStore(database: database)
        let history = PostgresHistoryStore(database: database)
        let snapshot = [Self.favorite("OL2W", at: 2), Self.favorite("OL1W", at: 1)]
        let searches = [
            SearchHistoryEntry(query: "dune", providers: ["openlibrary"], searchedAt: Date(timeIntervalSince1970: 1)),
            SearchHistoryEntry(query: "cat", providers: ["giphy"], searchedAt: Date(timeIntervalSince1970: 2)),
        ]
        #expect(try await favorites.importing(snapshot) == 2)
        #expect(try await history.importing(searches) == 2)
        #expect(try await favorites.importing(snapshot) == 0)
        #expect(try await history.importing(searches) == 0)
        #expect(try await favorites.all() == snapshot)
        #expect(try await history.entries().map(\.query) == ["cat", "dune"])
        await database.close()
    }
}

@Suite("Shared breakers and rate limits on a real PostgreSQL", .enabled(if: TestDatabase.url != nil, TestDatabase.skipReason), .serialized)
struct SharedCoordinationTests {
    static let policy = BreakerPolicy(failureThreshold: 3, baseBackoff: .seconds(30), maxBackoff: .seconds(300))

    static func stores(_ label: String) async throws -> (PostgresBreakerStore, PostgresBreakerStore, [SharedDatabase]) {
        let url = try await TestDatabase.fresh(label)
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let fallback = FileBreakerStore(directory: nil)
        return (PostgresBreakerStore(database: one, fallback: fallback), PostgresBreakerStore(database: two, fallback: fallback), [one, two])
    }

    @Test("a 429 with Retry-After seen by one instance keeps every instance from calling until the time it names")
    func retryAfterShared() async throws {
        let (first, second, databases) = try await Self.stores("retryafter")
        let key = "giphy@api.giphy.com"
        await first.record(key, outcome: .failure(reason: "rate limited", retryAfter: 45, rateLimited: true), probe: false, policy: Self.policy)
        guard case .reject(let until, let reason) = await second.admit(key, policy: Self.policy) else {
            Issue.record("the second instance must not call during the cool-down")
            return
        }
        #expect(abs(until.timeIntervalSinceNow - 45) < 5)
        #expect(reason.contains("asked to wait 45s"))
        let state = await second.state(key)
        #expect(state.consecutiveFailures == 1)
        for database in databases { await database.close() }
    }

    @Test("a 429 whose Retry-After is shorter than the backoff holds every instance only until the time named")
    func shortRetryAfterShared() async throws {
        let (first, second, databases) = try await Self.stores("shortretry")
        let key = "openlibrary@openlibrary.org"
        await first.record(key, outcome: .failure(reason: "rate limited", retryAfter: 1, rateLimited: true), probe: false, policy: Self.policy)
        guard case .reject(let until, _) = await second.admit(key, policy: Self.policy) else {
            Issue.record("the second instance must wait for the time the server named")
            return
        }
        #expect(until.timeIntervalSinceNow < 1.5)
        try await Task.sleep(for: .milliseconds(1100))
        #expect(await second.admit(key, policy: Self.policy) == .probe)
        for database in databases { await database.close() }
    }

    @Test("failures add up across instances and any instance's success resets them")
    func failuresShared() async throws {
        let (first, second, databases) = try await Self.stores("failures")
        let key = "openlibrary@openlibrary.org"
        let failure = BreakerOutcome.failure(reason: "HTTP 503", retryAfter: nil, rateLimited: false)
        await first.record(key, outcome: failure, probe: false, policy: Self.policy)
        await second.record(key, outcome: failure, probe: false, policy: Self.policy)
        await second.record(key, outcome: .success, probe: false, policy: Self.policy)
        await first.record(key, outcome: failure, probe: false, policy: Self.policy)
        await second.record(key, outcome: failure, probe: false, policy: Self.policy)
        #expect(await first.admit(key, policy: Self.policy) == .allow)
        await first.record(key, outcome: failure, probe: false, policy: Self.policy)
        guard case .reject(let until, let reason) = await second.admit(key, policy: Self.policy) else {
            Issue.record("three failures in a row across instances must open the breaker")
            return
        }
        #expect(abs(until.timeIntervalSinceNow - 30) < 5)
        #expect(reason == "3 failures in a row, last: HTTP 503")
        await second.reset(provider: "openlibrary")
        #expect(await first.admit(key, policy: Self.policy) == .allow)
        for database in databases { await database.close() }
    }

    @Test("after a cool-down exactly one call in the whole fleet is the trial")
    func oneTrialFleetWide() async throws {
        let (first, second, databases) = try await Self.stores("probe")
        let key = "aladin@www.aladin.co.kr"
        let quick = BreakerPolicy(failureThreshold: 1, baseBackoff: .milliseconds(200), maxBackoff: .seconds(1), probeLease: .seconds(30))
        await first.record(key, outcome: .failure(reason: "timeout", retryAfter: nil, rateLimited: false), probe: false, policy: quick)
        try await Task.sleep(for: .milliseconds(300))
        let decisions = await withTaskGroup(of: BreakerDecision.self) { group in
            for index in 0..<20 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask { await store.admit(key, policy: quick) }
            }
            return await group.reduce(into: [BreakerDecision]()) { $0.append($1) }
        }
        #expect(decisions.filter { $0 == .probe }.count == 1)
        #expect(decisions.filter { if case .reject = $0 { true } else { false } }.count == 19)
        await second.record(key, outcome: .success, probe: true, policy: quick)
        #expect(await first.admit(key, policy: quick) == .allow)
        for database in databases { await database.close() }
    }

    @Test("a Retry-After of infinity or NaN seconds opens for at most maxRetryAfter, never an error", arguments: [Double.infinity, .nan, 1e300, -5])
    func extremeRetryAfter(_ seconds: Double) async throws {
        let (first, _, databases) = try await Self.stores("extreme")
        let key = "giphy@extreme"
        let policy = BreakerPolicy(maxRetryAfter: .seconds(120))
        await first.record(key, outcome: .failure(reason: "rate limited", retryAfter: seconds, rateLimited: true), probe: false, policy: policy)
        guard case .reject(let until, _) = await first.admit(key, policy: policy) else {
            Issue.record("a rate limit opens the breaker whatever its Retry-After")
            return
        }
        #expect(until.timeIntervalSinceNow <= 121)
        #expect(databases[0].isReachable == true)
        for database in databases { await database.close() }
    }

    @Test("two instances draw from one bucket: a 5/s limit spaces their requests 0.2 s apart")
    func bucketShared() async throws {
        let url = try await TestDatabase.fresh("bucket")
        let (one, two) = (try await TestDatabase.connect(url), try await TestDatabase.connect(url))
        let first = PostgresRateLimitStore(database: one)
        let second = PostgresRateLimitStore(database: two)
        let limit = RateLimit(requests: 5, per: .seconds(1))
        var waits: [Double] = []
        for index in 0..<4 {
            let store = index.isMultiple(of: 2) ? first : second
            guard case .granted(let wait) = await store.reserve("openlibrary.org", limit: limit, maxWait: 10) else {
                Issue.record("a request that may wait 10 s is granted")
                return
            }
            waits.append(wait)
        }
        #expect(waits[0] < 0.05)
        for (earlier, later) in zip(waits, waits.dropFirst()) { #expect(abs(later - earlier - 0.2) < 0.05) }
        guard case .refused(let wait) = await first.reserve("openlibrary.org", limit: limit, maxWait: 0.1) else {
            Issue.record("a request that cannot wait long enough is refused")
            return
        }
        #expect(wait > 0.1)
        await one.close()
        await two.close()
    }
}
