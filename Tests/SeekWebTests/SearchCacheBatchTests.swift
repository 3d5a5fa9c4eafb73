import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekRuntime
import SeekStore
import Testing

/// A provider that notes, for each search, whether the call ran under a cache write batch.
final class BatchProbeProvider: SearchProvider {
    let descriptor = ProviderDescriptor(id: "probe", name: "Probe", kinds: [.book], capabilities: [.search], paging: .page)
    let endpoint = "http://127.0.0.1:1/probe"
    private let seen = NIOLockedValueBox<[Bool]>([])

    var searchesUnderABatch: [Bool] { seen.withLockedValue { $0 } }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        seen.withLockedValue { $0.append(CacheWriteBatch.current != nil) }
        return SearchPage(items: [Item(id: ItemID(provider: "probe", value: request.query), kind: .book, title: request.query)])
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        throw SeekError(.unsupported(capability: "detail"), provider: "probe")
    }
}

@Suite("A session's searches store their answers together")
struct SearchCacheBatchTests {
    @Test("a search's provider calls run under one cache write batch, and its answer is stored by the end")
    func searchRunsUnderABatch() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("seek-batch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let probe = BatchProbeProvider()
        let factory = ProviderFactory(id: "probe") { _ in probe }
        let settings = Settings(environment: [
            "HOME": home.path, "SEEK_CACHE_DIR": home.appendingPathComponent("cache").path,
            "SEEK_DATA_DIR": home.appendingPathComponent("data").path,
        ])
        let session = try await SeekSession.open(settings: settings, extraProviders: [factory])
        let answer = try await session.search(SearchQuery(query: "harbor", providers: "probe"))
        await session.close()
        #expect(answer.result.results.map(\.item.id.value) == ["harbor"])
        #expect(probe.searchesUnderABatch == [true])
        // Stored: a new session answers from the cache without asking the provider again.
        let again = try await SeekSession.open(settings: settings, extraProviders: [factory])
        _ = try await again.search(SearchQuery(query: "harbor", providers: "probe"))
        await again.close()
        #expect(probe.searchesUnderABatch == [true])
    }
}
