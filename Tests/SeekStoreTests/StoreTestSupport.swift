import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback
import SeekStore
import SeekTesting

/// A fresh folder for one test's database, removed by `remove()`.
struct TemporaryStore {
    let folder: URL
    let database: SeekDatabase

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-store-\(UUID().uuidString)")
        database = SeekDatabase(directory: folder)
    }

    /// Another connection pool on the same file, as a second process would open it.
    func secondConnection() -> SeekDatabase { SeekDatabase(directory: folder) }

    var path: String { folder.appendingPathComponent(SeekDatabase.fileName).path }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: NIOLockedValueBox<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = NIOLockedValueBox(start) }
    var now: Date { current.withLockedValue { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }
    var closure: @Sendable () -> Date { { [self] in now } }
}

/// An in-memory provider that counts its calls and fails on demand.
final class ScriptedProvider: SearchProvider {
    struct State {
        var searchCalls = 0
        var detailCalls = 0
        var failure: SeekError?
        var version = 1
        var delay: Duration?
    }
    private let state = NIOLockedValueBox(State())
    let descriptor = ProviderDescriptor(
        id: "scripted", name: "Scripted", kinds: [.book], capabilities: [.search, .detail], paging: .page)
    let endpoint = "http://127.0.0.1:1/scripted"

    var searchCalls: Int { state.withLockedValue { $0.searchCalls } }
    var detailCalls: Int { state.withLockedValue { $0.detailCalls } }
    /// Makes every later call fail with `error` (nil: succeed again).
    func fail(with error: SeekError?) { state.withLockedValue { $0.failure = error } }
    /// Changes what later calls answer, so a test can tell a cached answer from a fresh one.
    func bumpVersion() { state.withLockedValue { $0.version += 1 } }
    /// Makes later calls take `delay` before answering (nil: answer at once).
    func slow(_ delay: Duration?) { state.withLockedValue { $0.delay = delay } }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let (failure, version, delay) = state.withLockedValue { state in
            state.searchCalls += 1
            return (state.failure, state.version, state.delay)
        }
        if let delay { try await Task.sleep(for: delay) }
        if let failure { throw failure }
        let items = (1...2).map { n in
            Item(id: ItemID(provider: "scripted", value: "\(request.query)-\(n)"), kind: .book,
                 title: "\(request.query) \(n) v\(version)", creators: ["Author \(n)"])
        }
        return SearchPage(items: items, total: 40, next: "2")
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        let (failure, version) = state.withLockedValue { state in
            state.detailCalls += 1
            return (state.failure, state.version)
        }
        if let failure { throw failure }
        return ItemDetail(item: Item(id: id, kind: .book, title: "Detail v\(version)", creators: ["A. Writer"]),
                          description: "About \(id.value)")
    }
}

/// A response cache that always fails, to show a broken cache never fails a call.
struct BrokenCache: ResponseCache {
    func entry(forKey key: String) async throws -> CacheEntry? {
        throw StoreError(operation: "read cached response", path: "/nowhere", reason: "disk I/O error")
    }
    func store(_ entry: CacheEntry) async throws {
        throw StoreError(operation: "store cached response", path: "/nowhere", reason: "disk I/O error")
    }
    func removeEntries(storedBefore cutoff: Date) async throws -> Int { 0 }
    func removeAll() async throws {}
}

extension Favorite {
    static func sample(_ value: String, title: String? = nil, at date: Date = Date()) -> Favorite {
        Favorite(id: ItemID(provider: "openlibrary", value: value), kind: .book, title: title ?? "Title \(value)",
                 creators: ["Roald Dahl"], imageURL: URL(string: "https://covers.example/\(value).jpg"), addedAt: date)
    }
}

/// In these tests a "caching provider" is a provider seen through the caching middleware alone.
typealias CachingProvider = PipelinedProvider

extension PipelinedProvider {
    init(
        wrapping upstream: any SearchProvider, cache: any ResponseCache, policy: CachePolicy = CachePolicy(),
        staleAfter: Duration? = nil, writes: PendingCacheWrites? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, report: @escaping @Sendable (CacheEvent) -> Void = { _ in }
    ) {
        self.init(upstream, through: [
            CachingMiddleware(cache: cache, policy: policy, staleAfter: { _ in staleAfter }, writes: writes, now: now, report: report),
        ])
    }
}
