import Foundation
import SeekKit
import SeekCore
import SeekLoopback
import SeekResilience

/// Container key for the session's resilience services.
public enum ResilienceKey: ContainerKey { public typealias Value = ResilienceServices }

/// Where breakers and rate-limit buckets are kept: the embedded files, or a shared database.
struct CoordinationStores: Sendable {
    var breakers: any BreakerStore
    var buckets: any RateLimitStore
    /// Per-client budgets of a public server (never files: one per address would pile up).
    var clients: any RateLimitStore
}

/// How `seek` treats the services it calls: per provider a retrying, rate-limited transport and a circuit
/// breaker, and one stats store — all kept under the cache directory so every `seek` process shares them.
///
/// Settings per provider (environment over config file):
/// - `SEEK_<ID>_RATE_LIMIT` or `providers.<id>.rateLimit`: `2` (per second), `"100/h"`, `"3/s,burst=20"`,
///   `{"requests": 100, "per": 3600, "burst": 100}`, or `"off"`;
/// - `providers.<id>.retries`: retries after the first attempt (0 turns them off; default 2);
/// - `providers.<id>.breaker`: `{"failures": 3, "backoff": 30, "maxBackoff": 300}` (seconds).
public struct ResilienceServices: Sendable {
    let settings: Settings
    public let stats: ProviderStatsStore
    let clock: ResilienceClock
    /// Where breakers and rate-limit buckets live: files under the cache directory, or the shared database.
    let breakers: any BreakerStore
    let buckets: any RateLimitStore
    /// Each client's search budget on a public server: in memory, or shared by a fleet in the database.
    let clientBuckets: any RateLimitStore

    init(settings: Settings, clock: ResilienceClock = .system, stores: CoordinationStores? = nil) {
        self.settings = settings
        self.stats = ProviderStatsStore(url: settings.cacheDirectory.appendingPathComponent("stats.jsonl"))
        self.clock = clock
        let stores = stores ?? Self.embeddedStores(settings: settings, clock: clock)
        self.breakers = stores.breakers
        self.buckets = stores.buckets
        self.clientBuckets = stores.clients
    }

    /// Breakers and buckets in locked files under the cache directory, shared by every `seek` process on the machine.
    static func embeddedStores(settings: Settings, clock: ResilienceClock = .system) -> CoordinationStores {
        let directory = settings.cacheDirectory
        return CoordinationStores(
            breakers: FileBreakerStore(directory: directory.appendingPathComponent("breakers"), clock: clock),
            buckets: FileRateLimitStore(directory: directory.appendingPathComponent("ratelimit"), clock: clock),
            clients: MemoryRateLimitStore(clock: clock))
    }

    // MARK: Transport

    /// The transport the provider `factory` builds calls through: retries around a per-host rate limit
    /// (the one the provider declares, unless a setting names another) around `base`.
    func transport(for factory: ProviderFactory, base: any HTTPTransport) throws -> any HTTPTransport {
        let id = factory.id
        let (limit, explicit) = try rateLimit(for: id, declared: factory.defaultRateLimit)
        let limited = RateLimitedTransport(base, limit: limit, store: buckets, exemptLoopback: !explicit, clock: clock)
        return RetryingTransport(limited, policy: try retryPolicy(for: id), clock: clock)
    }

    /// The provider's rate limit and whether the user set it (the default `declared` by the provider
    /// spares loopback hosts).
    func rateLimit(for id: String, declared: RateLimit?) throws -> (limit: RateLimit?, explicit: Bool) {
        let variable = "SEEK_\(Self.variableName(id))_RATE_LIMIT"
        if let text = settings.string(variable) {
            guard let parsed = RateLimit.parse(text) else {
                throw SeekError(.configuration, provider: id, detail: "\(variable) is not a rate such as 2, 3/s, 100/h or off: \(text)")
            }
            return (parsed, true)
        }
        if let value = settings.file["providers"]?[id]?["rateLimit"] {
            guard let parsed = RateLimit.parse(value) else {
                throw SeekError(
                    .configuration, provider: id,
                    detail: "providers.\(id).rateLimit is not a rate such as 2, \"100/h\" or {\"requests\": 100, \"per\": 3600}")
            }
            return (parsed, true)
        }
        return (declared, false)
    }

    func retryPolicy(for id: String) throws -> RetryPolicy {
        guard let value = settings.file["providers"]?[id]?["retries"] else { return RetryPolicy() }
        guard let number = value.doubleValue, number >= 0, number <= 10, number == number.rounded(),
              let retries = Int(checked: number)
        else {
            throw SeekError(.configuration, provider: id, detail: "providers.\(id).retries must be a whole number from 0 to 10")
        }
        return RetryPolicy(maxAttempts: retries + 1)
    }

    // MARK: Breaker

    func breakerPolicy(for provider: any SearchProvider) throws -> BreakerPolicy {
        let id = provider.descriptor.id
        // The provider's deadline as the engine has it: the config file's (`ProviderTuning`'s one reader), else the descriptor's.
        let timeout = try settings.providerTimeout(id) ?? provider.descriptor.defaultTimeout
        let lease = Duration.seconds(clamping: max(30, 2 * timeout.seconds.rounded(.up)))
        guard let object = settings.file["providers"]?[id]?["breaker"] else { return BreakerPolicy(probeLease: lease) }
        func number(_ key: String, _ range: ClosedRange<Int>, whole: Bool = false) throws -> Double? {
            guard let value = object[key] else { return nil }
            guard let number = value.doubleValue, Double(range.lowerBound) <= number, number <= Double(range.upperBound),
                  !whole || number == number.rounded()
            else {
                let kind = whole ? "a whole number" : "a number"
                throw SeekError(
                    .configuration, provider: id,
                    detail: "providers.\(id).breaker.\(key) must be \(kind) from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        guard object.objectValue != nil else {
            throw SeekError(.configuration, provider: id, detail: "providers.\(id).breaker must be an object such as {\"failures\": 3, \"backoff\": 30}")
        }
        let defaults = BreakerPolicy()
        let failures = try number("failures", 1...100, whole: true).flatMap { Int(checked: $0) } ?? defaults.failureThreshold
        let backoff = try number("backoff", 0...86_400).map { Duration.seconds(clamping: $0) } ?? defaults.baseBackoff
        let maxBackoff = try number("maxBackoff", 0...604_800).map { Duration.seconds(clamping: $0) } ?? max(defaults.maxBackoff, backoff)
        return BreakerPolicy(failureThreshold: failures, baseBackoff: backoff, maxBackoff: maxBackoff, probeLease: lease)
    }

    /// The breaker of `provider` for the host it is configured to call (so `--demo`, which calls a loopback
    /// copy, is not held back by a cool-down of the real service).
    func breaker(for provider: any SearchProvider) throws -> CircuitBreaker {
        CircuitBreaker(key: Self.breakerKey(provider), store: breakers, policy: try breakerPolicy(for: provider), clock: clock)
    }

    /// `id@host` of the service `provider` calls (`id` alone when its endpoint names no host).
    static func breakerKey(_ provider: any SearchProvider) -> String {
        let id = provider.descriptor.id
        let host = URL(string: provider.endpoint)?.host?.lowercased() ?? ""
        return host.isEmpty ? id : "\(id)@\(host)"
    }

    /// Breakers and stats as call middleware, with a breaker for each of `providers`.
    func middleware(for providers: [any SearchProvider]) throws -> ResilienceMiddleware {
        var breakers: [String: CircuitBreaker] = [:]
        for provider in providers { breakers[provider.descriptor.id] = try breaker(for: provider) }
        return ResilienceMiddleware(breakers: breakers, stats: stats) { id in "`seek providers --reset \(id)` clears it" }
    }

    /// The cool-down of `provider` now: nil when it may be called.
    public func suspension(of provider: any SearchProvider) async -> (until: Date, reason: String?)? {
        guard let breaker = try? breaker(for: provider) else { return nil }
        let state = await breaker.state
        guard let until = state.phase(at: clock.now(), policy: breaker.policy).suspendedUntil else { return nil }
        return (until, state.reason)
    }

    /// Clears every cool-down of provider `id` (whatever host it was for).
    public func reset(_ id: String) async {
        await breakers.reset(provider: id)
    }

    /// `open-library` → `OPEN_LIBRARY`.
    static func variableName(_ id: String) -> String {
        String(id.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
