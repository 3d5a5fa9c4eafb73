import Metrics

/// The store metrics `/metrics` shows:
///
/// - `seek_cache_lookups_total{result}`: response-cache lookups by what answered — `hit` (a fresh
///   entry, from the memory tier or the store), `miss` (the provider was asked, whatever it answered),
///   `stale` (the provider failed and an expired entry was served instead);
/// - `seek_store_reachable`: 1 while the shared store (PostgreSQL) answers, 0 while it does not;
///   absent without one.
///
/// Metrics go to swift-metrics' process-wide factory (a no-op until a host bootstraps one: `seek serve`
/// does, the CLI does not), or to a task's own (`withMetricsFactory`, for tests).
public enum StoreMetrics {
    public static let cacheLookups = "seek_cache_lookups_total"
    public static let storeReachable = "seek_store_reachable"

    /// What answered a response-cache lookup.
    public enum LookupResult: String, Sendable, CaseIterable {
        case hit, miss, stale
    }

    /// Counts one response-cache lookup.
    public static func lookup(_ result: LookupResult) {
        Counter(label: cacheLookups, dimensions: [("result", result.rawValue)]).increment()
    }

    /// Sets `seek_store_reachable`.
    public static func reachable(_ reachable: Bool) {
        Gauge(label: storeReachable).record(reachable ? 1 : 0)
    }
}
