import Foundation

/// What the transports of one provider call noticed on the way, for `ResilientProvider` to act on:
/// a server's `Retry-After` (which a status-mapped error no longer carries) and local throttling.
/// Set as a task-local for the duration of a call; child tasks inherit it.
public final class CallObserver: Sendable {
    private struct Notes {
        var retryAfterUntil: Date?
        var throttledLocally = false
    }

    private let notes = Locked(Notes())

    @TaskLocal public static var current: CallObserver?

    public init() {}

    /// A 429 or 503 asked the client to wait until `date`.
    public func noteRetryAfter(until date: Date) {
        notes.withLock { notes in
            notes.retryAfterUntil = max(notes.retryAfterUntil ?? date, date)
        }
    }

    /// seek's own rate limit refused a request (the service itself did not fail).
    public func noteThrottledLocally() {
        notes.withLock { $0.throttledLocally = true }
    }

    public var retryAfterUntil: Date? { notes.withLock { $0.retryAfterUntil } }
    public var throttledLocally: Bool { notes.withLock { $0.throttledLocally } }
}

/// A provider behind a circuit breaker: while its breaker is open the provider is not called and the
/// call fails at once with `.suspended(until:)`; every call's outcome feeds the breaker and the stats.
///
/// A call cancelled from outside (the engine cancels a provider when the search's deadline passes) counts
/// as a timeout: in `seek` nothing else cancels a provider call (Ctrl-C ends the process).
public struct ResilientProvider: SearchProvider {
    public let base: any SearchProvider
    public let breaker: CircuitBreaker
    public let stats: ProviderStatsStore?
    /// Added to the suspension message, e.g. how to clear it.
    public let hint: String?

    public init(_ base: any SearchProvider, breaker: CircuitBreaker, stats: ProviderStatsStore? = nil, hint: String? = nil) {
        self.base = base
        self.breaker = breaker
        self.stats = stats
        self.hint = hint
    }

    public var descriptor: ProviderDescriptor { base.descriptor }
    public var isConfigured: Bool { base.isConfigured }
    public var endpoint: String { base.endpoint }
    public var answerScope: String { base.answerScope }

    public func imageURL(for item: Item, size: ImageSize) -> URL? {
        base.imageURL(for: item, size: size)
    }

    public func search(_ request: SearchRequest) async throws -> SearchPage {
        try await guarded(count: { $0.items.count }) { try await base.search(request) }
    }

    public func detail(_ id: ItemID) async throws -> ItemDetail {
        try await guarded(count: { _ in 1 }) { try await base.detail(id) }
    }

    public func trending(limit: Int) async throws -> SearchPage {
        try await guarded(count: { $0.items.count }) { try await base.trending(limit: limit) }
    }

    public func suggest(_ prefix: String, limit: Int) async throws -> [String] {
        try await guarded(count: { $0.count }) { try await base.suggest(prefix, limit: limit) }
    }

    // MARK: The guard

    private func guarded<T: Sendable>(
        count: (T) -> Int, _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        let id = descriptor.id
        // An unconfigured provider only says "no key": nothing to guard.
        guard base.isConfigured else { return try await operation() }
        let decision = breaker.admit()
        if case .reject(let until, let reason) = decision {
            var detail = reason
            if let hint { detail += "; \(hint)" }
            throw SeekError(.suspended(until: until), provider: id, detail: detail)
        }
        let probe = decision == .probe
        let observer = CallObserver()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let value = try await CallObserver.$current.withValue(observer) { try await operation() }
            let elapsed = clock.now - start
            breaker.record(.success, probe: probe)
            let n = count(value)
            stats?.record(provider: id, status: n == 0 ? .empty : .ok, elapsed: elapsed, count: n, error: nil)
            return value
        } catch {
            let elapsed = clock.now - start
            var seek = SeekError.wrap(error, provider: id)
            if Task.isCancelled, Self.isCancellation(seek) {
                seek = SeekError(.timeout(seconds: elapsed.seconds), provider: id, detail: "the search's deadline passed")
            }
            breaker.record(Self.classify(seek, observer: observer, now: breaker.clock.now()), probe: probe)
            stats?.record(provider: id, status: ProviderStatus(error: seek), elapsed: elapsed, count: 0, error: seek)
            throw error
        }
    }

    private static func isCancellation(_ error: SeekError) -> Bool {
        if case .cancelled = error.kind { return true }
        return false
    }

    /// What an error says about the service's health.
    static func classify(_ error: SeekError, observer: CallObserver, now: Date) -> BreakerOutcome {
        let retryAfter = observer.retryAfterUntil.map { max(0, $0.timeIntervalSince(now)) }
        let reason = SeekError(error.kind).cause
        switch error.kind {
        case .network, .timeout, .undecodable, .bodyTooLarge:
            return .failure(reason: reason, retryAfter: nil, rateLimited: false)
        case .httpStatus(let code) where code >= 500:
            return .failure(reason: reason, retryAfter: code == 503 ? retryAfter : nil, rateLimited: false)
        case .rateLimited(let seconds):
            // seek's own limiter refusing is not the service failing.
            if observer.throttledLocally { return .neutral }
            return .failure(reason: "rate limited", retryAfter: retryAfter ?? seconds, rateLimited: true)
        case .httpStatus, .notFound, .unauthorized:
            return .success
        case .missingKey, .unsupported, .invalidInput, .suspended, .cancelled, .notRegistered, .configuration:
            return .neutral
        }
    }
}
