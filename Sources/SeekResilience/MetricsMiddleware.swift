import Metrics
import SeekCore

/// The provider metrics `/metrics` shows, by provider id (a bounded set: the configured providers):
///
/// - `seek_provider_calls_total{provider,status}`: calls, counted when each ends;
/// - `seek_provider_call_duration_seconds{provider,status}`: their latency (a histogram);
/// - `seek_breaker_open{provider}`: 1 while the provider is suspended (its breaker, or a cool-down
///   shared by the fleet, refuses calls), 0 once a call is answered.
///
/// `status` is a `ProviderStatus` raw value: `ok`, `empty`, `timeout`, `error`, `rateLimited`,
/// `unauthorized`, `skipped`, `suspended`, `unsupported`.
///
/// Metrics go to swift-metrics' process-wide factory (a no-op until a host bootstraps one: `seek serve`
/// does, the CLI does not), or to a task's own (`withMetricsFactory`, for tests).
public enum ProviderMetrics {
    public static let calls = "seek_provider_calls_total"
    public static let duration = "seek_provider_call_duration_seconds"
    public static let breakerOpen = "seek_breaker_open"

    /// Records one call of `provider` that ended with `status` after `elapsed`.
    public static func call(provider: String, status: ProviderStatus, elapsed: Duration) {
        let dimensions = [("provider", provider), ("status", status.rawValue)]
        Counter(label: calls, dimensions: dimensions).increment()
        Timer(label: duration, dimensions: dimensions).record(duration: elapsed)
    }

    /// Sets `seek_breaker_open{provider}`: 1 while calls to `provider` are refused, 0 when they go through.
    public static func breaker(provider: String, open: Bool) {
        Gauge(label: breakerOpen, dimensions: [("provider", provider)]).record(open ? 1 : 0)
    }
}

/// Counts provider calls by provider and status, with their latency (`ProviderMetrics`).
///
/// A provider call here is a call that reached the resilience layer: the pipeline puts this
/// middleware right inside the response cache, so an answer from the cache is no call (it counts in
/// `seek_cache_lookups_total` instead), while a call refused by an open breaker is one, `suspended`.
/// A stale copy served in place of a failed call counts the call with its failure's status.
///
/// The breaker gauge follows the calls: a `suspended` refusal sets it to 1, an answer (`ok` or `empty`)
/// to 0. Other failures leave it as it was, since they do not say whether the breaker has opened.
public struct MetricsMiddleware: ProviderMiddleware {
    public init() {}

    public func handle(
        _ request: ProviderRequest, context: ProviderCallContext,
        next: @escaping @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse
    ) async throws -> ProviderResponse {
        let id = context.providerID
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await next(request, context)
            ProviderMetrics.call(provider: id, status: response.count == 0 ? .empty : .ok, elapsed: clock.now - start)
            ProviderMetrics.breaker(provider: id, open: false)
            return response
        } catch {
            let status = Self.status(of: error, provider: id, cancelled: Task.isCancelled)
            ProviderMetrics.call(provider: id, status: status, elapsed: clock.now - start)
            if status == .suspended { ProviderMetrics.breaker(provider: id, open: true) }
            throw error
        }
    }

    /// The status a failed call counts under: as the provider's outcome would say (`ProviderStatus(error:)`),
    /// except that a call cancelled from outside (the search's deadline passed) is a timeout, as the stats
    /// count it.
    static func status(of error: any Error, provider: String, cancelled: Bool) -> ProviderStatus {
        let seek = SeekError.wrap(error, provider: provider)
        if cancelled, case .cancelled = seek.kind { return .timeout }
        return ProviderStatus(error: seek)
    }
}
