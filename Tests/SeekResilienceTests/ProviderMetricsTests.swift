import Foundation
import Metrics
import MetricsTestKit
import SeekCore
import SeekResilience
import Testing

/// `MetricsMiddleware`: provider calls by provider and status, seen through a test metrics factory
/// (task-local, so nothing here touches the process's registry).
@Suite("Resilience: provider call metrics")
struct ProviderMetricsTests {
    /// How a call through the middleware ends: a page of `items` results, or `error`.
    struct Ending: Sendable, CustomTestStringConvertible {
        var items = 0
        var error: SeekError?
        let status: String

        var testDescription: String { status }
    }

    static let endings: [Ending] = [
        Ending(items: 3, status: "ok"),
        Ending(items: 0, status: "empty"),
        Ending(error: SeekError(.timeout(seconds: 2), provider: "metered"), status: "timeout"),
        Ending(error: SeekError(.httpStatus(500), provider: "metered"), status: "error"),
        Ending(error: SeekError(.network, provider: "metered"), status: "error"),
        Ending(error: SeekError(.rateLimited(retryAfterSeconds: 5), provider: "metered"), status: "rateLimited"),
        Ending(error: SeekError(.unauthorized, provider: "metered"), status: "unauthorized"),
        Ending(error: SeekError(.missingKey(variable: "SEEK_METERED_KEY"), provider: "metered"), status: "skipped"),
        Ending(error: SeekError(.suspended(until: Date(timeIntervalSinceNow: 60)), provider: "metered"), status: "suspended"),
        Ending(error: SeekError(.unsupported(capability: "trending"), provider: "metered"), status: "unsupported"),
    ]

    static func page(_ count: Int) -> ProviderResponse {
        .page(SearchPage(items: (0..<count).map { Item(id: ItemID(provider: "metered", value: "\($0)"), kind: .book, title: "Book \($0)") }))
    }

    /// One search call of provider `metered` through the middleware, answered by `answer`; its error, if any.
    static func call(
        _ metrics: TestMetrics, _ answer: @escaping @Sendable () async throws -> ProviderResponse
    ) async -> (any Error)? {
        let context = ProviderCallContext(provider: ScriptedProvider(id: "metered"), options: CallOptions())
        return await withMetricsFactory(metrics) {
            do {
                _ = try await MetricsMiddleware().handle(.search(SearchRequest(query: "harbor")), context: context) { _, _ in
                    try await answer()
                }
                return nil
            } catch {
                return error
            }
        }
    }

    static func dimensions(_ status: String) -> [(String, String)] {
        [("provider", "metered"), ("status", status)]
    }

    @Test("a call counts once, with its latency, under its ProviderStatus", arguments: endings)
    func countsByStatus(ending: Ending) async throws {
        let metrics = TestMetrics()
        let thrown = await Self.call(metrics) {
            if let error = ending.error { throw error }
            return Self.page(ending.items)
        }
        #expect((thrown as? SeekError) == ending.error)
        #expect(metrics.counterTotal(label: "seek_provider_calls_total") == 1)
        #expect(try metrics.expectCounter("seek_provider_calls_total", Self.dimensions(ending.status)).totalValue == 1)
        #expect(try metrics.expectTimer("seek_provider_call_duration_seconds", Self.dimensions(ending.status)).values.count == 1)
    }

    @Test("a call cancelled from outside (the search's deadline) counts as a timeout")
    func cancelledIsTimeout() async throws {
        let metrics = TestMetrics()
        let context = ProviderCallContext(provider: ScriptedProvider(id: "metered"), options: CallOptions())
        await withMetricsFactory(metrics) {
            let call = Task {
                try await MetricsMiddleware().handle(.search(SearchRequest(query: "harbor")), context: context) { _, _ in
                    try await Task.sleep(for: .seconds(30))
                    return Self.page(1)
                }
            }
            call.cancel()
            _ = await call.result
        }
        #expect(try metrics.expectCounter("seek_provider_calls_total", Self.dimensions("timeout")).totalValue == 1)
        #expect(metrics.counterTotal(label: "seek_provider_calls_total") == 1)
    }

    @Test("a suspended call sets seek_breaker_open to 1, the next answer sets it back to 0")
    func breakerGauge() async throws {
        let metrics = TestMetrics()
        _ = await Self.call(metrics) { throw SeekError(.suspended(until: Date(timeIntervalSinceNow: 60)), provider: "metered") }
        let gauge = try metrics.expectGauge("seek_breaker_open", [("provider", "metered")])
        #expect(gauge.lastValue == 1)
        _ = await Self.call(metrics) { Self.page(1) }
        #expect(gauge.lastValue == 0)
    }

    @Test("a failure that is not a suspension leaves the breaker gauge as it was")
    func otherFailuresLeaveGauge() async throws {
        let metrics = TestMetrics()
        _ = await Self.call(metrics) { throw SeekError(.suspended(until: Date(timeIntervalSinceNow: 60)), provider: "metered") }
        _ = await Self.call(metrics) { throw SeekError(.httpStatus(503), provider: "metered") }
        let gauge = try metrics.expectGauge("seek_breaker_open", [("provider", "metered")])
        #expect(gauge.values == [1])
    }
}
