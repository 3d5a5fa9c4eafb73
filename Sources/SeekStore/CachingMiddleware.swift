import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekSupport

/// Something worth telling the user about a cached call.
public enum CacheEvent: Sendable {
    /// A detail record came from the cache because the provider failed with this error.
    case servedStaleDetail(ItemID, SeekError)
    /// The cache could not be read or written; the call went on without it.
    case unavailable(any Error)
}

/// The response cache around provider calls: a fresh entry answers a search or detail without
/// calling on; a miss calls on and stores the answer; when the call fails, an entry younger than the
/// max stale age is served, marked (`SearchPage.staleBecause`) so the outcome still says what failed.
///
/// Trending and suggest pass straight through. A call with `noCache` skips reading (the fresh answer
/// is still stored). A broken cache never fails a call. Each lookup counts in
/// `seek_cache_lookups_total` as a hit, a miss or a stale answer served (`StoreMetrics`).
public struct CachingMiddleware: ProviderMiddleware {
    public let cache: any ResponseCache
    public let policy: CachePolicy
    /// With a stale copy in hand, how long a call may take before the copy is served instead (marked
    /// with a timeout): a little less than the call's deadline, which would otherwise cancel the call
    /// first and lose the copy; nil waits however long it takes.
    public let staleAfter: @Sendable (ProviderCallContext) -> Duration?
    /// Where fresh answers are stored after they have been returned; nil stores each one before
    /// returning it.
    public let writes: PendingCacheWrites?
    /// Answers kept decoded in memory as well, for a long-lived host: a hit there skips the database
    /// read and the decoding (most of a cached search's time). Nil reads the database every time.
    public let memory: ResponseMemory?
    private let now: @Sendable () -> Date
    private let report: @Sendable (CacheEvent) -> Void

    /// - Parameters:
    ///   - staleAfter: see `staleAfter`.
    ///   - writes: see `writes`.
    ///   - now: the clock that dates entries and judges their age (injected in tests).
    ///   - report: told about stale details and cache failures (the CLI prints them on stderr).
    public init(
        cache: any ResponseCache, policy: CachePolicy = CachePolicy(),
        staleAfter: @escaping @Sendable (ProviderCallContext) -> Duration? = { _ in nil }, writes: PendingCacheWrites? = nil,
        memory: ResponseMemory? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, report: @escaping @Sendable (CacheEvent) -> Void = { _ in }
    ) {
        self.cache = cache
        self.policy = policy
        self.staleAfter = staleAfter
        self.writes = writes
        self.memory = memory
        self.now = now
        self.report = report
    }

    /// How long before a call's deadline a stale copy is served instead: 80% of it, or 0.5 s less.
    public static func staleAfter(deadline: Duration) -> Duration {
        max(deadline * 0.8, deadline - .milliseconds(500))
    }

    public func handle(
        _ request: ProviderRequest, context: ProviderCallContext,
        next: @escaping @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse
    ) async throws -> ProviderResponse {
        let provider = context.providerID
        let scope = context.provider.answerScope(context.options)
        switch request {
        case .search(let search):
            let key = CacheKey.search(provider: provider, endpoint: scope, request: search)
            let answer = try await cached(CachedPage.self, kind: .search, key: key, context: context) {
                guard case .page(let page) = try await next(request, context) else {
                    throw SeekError(.undecodable, provider: provider, detail: "a search answered with something other than a page")
                }
                return CachedPage(page)
            }
            return .page(answer.value.page(staleBecause: answer.staleBecause))
        case .detail(let id):
            let key = CacheKey.detail(provider: provider, endpoint: scope, id: id)
            let answer = try await cached(ItemDetail.self, kind: .detail, key: key, context: context) {
                guard case .detail(let detail) = try await next(request, context) else {
                    throw SeekError(.undecodable, provider: provider, detail: "a detail call answered with something other than a record")
                }
                return detail
            }
            if let failure = answer.staleBecause { report(.servedStaleDetail(id, failure)) }
            return .detail(answer.value)
        case .trending, .suggest:
            return try await next(request, context)
        }
    }

    /// The cache protocol shared by search and detail: the value, and the failure it stands in for
    /// when it is a stale copy.
    private func cached<Value: StoredAnswer>(
        _ type: Value.Type, kind: CacheKind, key: String, context: ProviderCallContext,
        fetch: @escaping @Sendable () async throws -> Value
    ) async throws -> (value: Value, staleBecause: SeekError?) {
        let ttl = policy.ttl(kind)
        guard ttl > 0 else { return (try await fetch(), nil) }
        let provider = context.providerID
        var fallback: Value?
        let readsCache = !policy.bypassReads && !context.options.noCache
        if readsCache, let kept = memory?.value(type, forKey: key) {
            let age = now().timeIntervalSince(kept.storedAt)
            if age >= 0, age < ttl {
                StoreMetrics.lookup(.hit)
                return (kept.value, nil)
            }
        }
        if readsCache, let entry = await lookup(key), let value = decode(type, entry.body) {
            let age = now().timeIntervalSince(entry.storedAt)
            if age >= 0, age < ttl {
                memory?.keep(value, jsonBytes: entry.body.count, storedAt: entry.storedAt, forKey: key)
                StoreMetrics.lookup(.hit)
                return (value, nil)
            }
            if age < policy.maxStaleAge { fallback = value }
        }
        let value: Value
        do {
            if fallback != nil, let limit = staleAfter(context) {
                value = try await Self.race(limit, provider: provider, fetch)
            } else {
                value = try await fetch()
            }
        } catch {
            let failure = SeekError.wrap(error, provider: provider)
            guard let fallback, Self.servesStale(after: failure) else {
                if readsCache { StoreMetrics.lookup(.miss) }
                throw error
            }
            StoreMetrics.lookup(.stale)
            return (fallback, failure)
        }
        if readsCache { StoreMetrics.lookup(.miss) }
        // Written once: the database stores these bytes and the memory tier counts them.
        let body = value.storedJSON
        let storedAt = now()
        memory?.keep(value, jsonBytes: body.count, storedAt: storedAt, forKey: key)
        let entry = CacheEntry(key: key, provider: provider, kind: kind, body: body, storedAt: storedAt)
        if let batch = CacheWriteBatch.current, batch.hold(entry) {
            // Stored with the search's other answers once its calls are done (`CacheWriteBatch`).
        } else if let writes {
            writes.track { await self.save(entry) }
        } else {
            await save(entry)
        }
        return (value, nil)
    }

    /// `fetch`'s value, or a timeout error naming the provider once `limit` passes first (`fetch` is then cancelled).
    static func race<Value: Sendable>(
        _ limit: Duration, provider: String, _ fetch: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        do {
            return try await Deadline.race(limit, fetch)
        } catch let error as SeekError where error.kind == .timeout(seconds: limit.seconds) && error.provider == nil {
            throw SeekError(.timeout(seconds: limit.seconds), provider: provider, detail: "no answer in time")
        }
    }

    /// Failures that say nothing about the item (the provider is down, slow, limiting or garbled)
    /// may be answered from a stale entry; answers about the request itself (not found, invalid,
    /// unsupported) and cancellation may not.
    static func servesStale(after failure: SeekError) -> Bool {
        switch failure.kind {
        case .network, .timeout, .httpStatus, .rateLimited, .unauthorized, .undecodable, .bodyTooLarge, .suspended:
            return true
        default:  // .missingKey, .notFound, .unsupported, .invalidInput, .cancelled, .notRegistered, .configuration
            return false
        }
    }

    private func lookup(_ key: String) async -> CacheEntry? {
        do {
            return try await cache.entry(forKey: key)
        } catch {
            if !Task.isCancelled { report(.unavailable(error)) }
            return nil
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ body: Data) -> Value? {
        // An entry written by another version that no longer decodes is a miss, not an error.
        try? JSONDecoder().decode(type, from: body)
    }

    private func save(_ entry: CacheEntry) async {
        await CacheWriteBatch.store([entry], in: cache, report: report)
    }
}

/// The stored form of a `SearchPage` (which is not Codable: its stale marker is never stored).
struct CachedPage: Codable, Sendable {
    var items: [Item]
    var total: Int?
    var next: String?

    init(_ page: SearchPage) {
        items = page.items
        total = page.total
        next = page.next
    }

    func page(staleBecause failure: SeekError? = nil) -> SearchPage {
        SearchPage(items: items, total: total, next: next, staleBecause: failure)
    }
}

/// Cache keys. A search key holds the provider, its endpoint (so a different server, e.g. `--demo`,
/// never answers from another's entries), the normalised query, the cursor or else the page, the
/// limit and the language; a detail key holds the provider, endpoint and item id. Both hold the
/// stored answers' layout version, so an entry another build wrote in another layout is never read.
public enum CacheKey {
    public static func search(provider: String, endpoint: String, request: SearchRequest) -> String {
        let position = request.cursor.map { "cursor=\($0)" } ?? "page=\(request.page)"
        return encode(["search", layout, provider, endpoint, SearchHistoryEntry.normalize(request.query), position,
                       "limit=\(request.limit)", "language=\(request.language ?? "")"])
    }

    public static func detail(provider: String, endpoint: String, id: ItemID) -> String {
        encode(["detail", layout, provider, endpoint, id.description])
    }

    /// `layout=` and `StoredAnswerFormat.version`.
    static let layout = "layout=" + StoredAnswerFormat.version

    /// A JSON array: unambiguous whatever characters the parts hold. The same text `JSONEncoder`
    /// wrote for keys stored before (tested), without its cost on the way to every request.
    static func encode(_ parts: [String]) -> String {
        JSONWriter.text(parts)
    }
}

/// The answers one search stores, held back until its calls are done and then stored together
/// (`store(in:writes:report:)`): one transaction a search instead of one an answer (issue 30). A
/// search sets it as `current` for the tasks that make its calls; an answer that comes after the batch
/// was taken (a call its deadline abandoned) is stored on its own, as without a batch.
public final class CacheWriteBatch: Sendable {
    @TaskLocal public static var current: CacheWriteBatch?

    private struct State {
        var entries: [CacheEntry] = []
        var taken = false
    }
    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Holds `entry` for the batch; false once the batch was taken (the caller stores it itself).
    func hold(_ entry: CacheEntry) -> Bool {
        state.withLockedValue { state in
            guard !state.taken else { return false }
            state.entries.append(entry)
            return true
        }
    }

    /// The entries held, in the order they came; the batch holds nothing more after this.
    func take() -> [CacheEntry] {
        state.withLockedValue { state in
            state.taken = true
            defer { state.entries = [] }
            return state.entries
        }
    }

    /// Stores the answers held, together, in `cache`: left running in `writes` when there is one (a
    /// closing host waits for it), else awaited. A broken cache is reported, never thrown.
    public func store(in cache: any ResponseCache, writes: PendingCacheWrites?, report: @escaping @Sendable (CacheEvent) -> Void) async {
        let entries = take()
        guard !entries.isEmpty else { return }
        let write: @Sendable () async -> Void = { await Self.store(entries, in: cache, report: report) }
        if let writes { writes.track(write) } else { await write() }
    }

    /// Stores `entries` in `cache` unless the task was cancelled; a failure is reported, never thrown.
    static func store(_ entries: [CacheEntry], in cache: any ResponseCache, report: @Sendable (CacheEvent) -> Void) async {
        guard !Task.isCancelled else { return }
        do {
            try await cache.store(entries)
        } catch {
            if !Task.isCancelled { report(.unavailable(error)) }
        }
    }
}

/// Cache writes still running after their answers were returned. Encoding an answer and writing it
/// to SQLite takes a while, which the fan-out's last answer should not
/// wait for; whoever ends the process waits for them instead (`wait()`). A finished write forgets
/// itself, so a server that lives for weeks holds only the writes under way.
public final class PendingCacheWrites: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())

    public init() {}

    /// How many writes are under way.
    public var count: Int { state.withLockedValue { $0.running.count } }

    func track(_ write: @escaping @Sendable () async -> Void) {
        state.withLockedValue { state in
            let id = state.nextID
            state.nextID &+= 1
            // Registered under the lock the task's own removal takes, so it is never removed first.
            state.running[id] = Task(executorPreference: ServingExecutor.current) {
                await write()
                self.finished(id)
            }
        }
    }

    private func finished(_ id: UInt64) {
        _ = state.withLockedValue { $0.running.removeValue(forKey: id) }
    }

    /// Returns once every write tracked so far, and any tracked meanwhile, has finished.
    public func wait() async {
        while true {
            let pending = state.withLockedValue { Array($0.running.values) }
            guard !pending.isEmpty else { return }
            for task in pending { await task.value }
        }
    }
}

/// Recent answers, decoded, by cache key: the memory tier of the response cache, in front of the
/// database. Bounded by bytes and by count; the least recently used entry goes first, in O(1).
/// Entries age by the same TTL as the database's.
///
/// An entry's cost is its stored JSON (which the database write makes anyway) times
/// `decodedBytesPerJSONByte`: decoded, an answer's strings, URLs and dictionaries take about 4.5
/// times its JSON (measured: 16 MB of JSON held 73 MB more resident memory, BENCHMARKS.md issue 30).
public final class ResponseMemory: Sendable {
    private struct Entry: Sendable {
        var value: any Sendable
        var storedAt: Date
    }

    /// The default byte limit: room for about 80 three-provider searches of 20 results decoded,
    /// within a long-running server's 90 MiB (issue 30: after a minute of misses, 12 MB left
    /// 88.9–90.8 MiB; since misses run at 300/s, 10 MB left 89.6–91.0 and 8 MB 85.0); the database
    /// holds the rest.
    public static let defaultLimitBytes = 8 * 1024 * 1024
    /// Memory a decoded answer takes per byte of its stored JSON (rounded up).
    public static let decodedBytesPerJSONByte = 5

    public let limitBytes: Int
    public let countLimit: Int
    private let state = NIOLockedValueBox(LRUList<Entry>())

    /// A tier of at most `limitBytes` of stored JSON and `countLimit` entries; a zero limit keeps nothing.
    public init(limitBytes: Int = ResponseMemory.defaultLimitBytes, countLimit: Int = 100_000) {
        self.limitBytes = max(0, limitBytes)
        self.countLimit = max(0, countLimit)
    }

    /// The entries and the bytes they cost now.
    public var usage: (entries: Int, bytes: Int) {
        state.withLockedValue { ($0.count, $0.totalCost) }
    }

    func value<Value>(_ type: Value.Type, forKey key: String) -> (value: Value, storedAt: Date)? {
        state.withLockedValue { list in
            guard let entry = list.value(for: key), let value = entry.value as? Value else { return nil }
            return (value, entry.storedAt)
        }
    }

    /// Keeps `value`, whose stored JSON is `jsonBytes` long, as the newest entry; an entry over the
    /// whole limit is not kept.
    func keep(_ value: some Sendable, jsonBytes: Int, storedAt: Date, forKey key: String) {
        let limitBytes = self.limitBytes, countLimit = self.countLimit
        let bytes = jsonBytes.multipliedReportingOverflow(by: Self.decodedBytesPerJSONByte).overflow
            ? Int.max : jsonBytes * Self.decodedBytesPerJSONByte
        state.withLockedValue { list in
            guard countLimit > 0, bytes <= limitBytes else {
                list.remove(key)
                return
            }
            list.set(Entry(value: value, storedAt: storedAt), cost: bytes, for: key)
            while list.totalCost > limitBytes || list.count > countLimit {
                guard list.removeOldest() != nil else { break }
            }
        }
    }
}
