import Foundation
import SeekCore
import SeekKit

/// Each provider's calls behind its circuit breaker: while a breaker is open the provider is not
/// called and the call fails at once with `.suspended(until:)`; every call's outcome feeds the
/// breaker and the stats. Providers without a breaker here, and unconfigured ones, pass straight on.
///
/// A call cancelled from outside (the engine cancels a provider when the search's deadline passes)
/// counts as a timeout when it was cancelled while waiting for the provider. What a failure says about
/// the service comes with the error itself: the service's `Retry-After` date and whether seek's own
/// rate limit refused the request (`SeekError.retryAfter`, `SeekError.throttledLocally`).
public struct ResilienceMiddleware: ProviderMiddleware {
    /// Each provider's breaker, by provider id.
    public let breakers: [String: CircuitBreaker]
    public let stats: ProviderStatsStore?
    /// Added to a suspension's message for a provider id, e.g. how to clear it.
    public let hint: @Sendable (String) -> String?

    public init(
        breakers: [String: CircuitBreaker], stats: ProviderStatsStore? = nil,
        hint: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.breakers = breakers
        self.stats = stats
        self.hint = hint
    }

    public func handle(
        _ request: ProviderRequest, context: ProviderCallContext,
        next: @escaping @Sendable (ProviderRequest, ProviderCallContext) async throws -> ProviderResponse
    ) async throws -> ProviderResponse {
        let id = context.providerID
        // An unconfigured provider only says "no key": nothing to guard.
        guard context.provider.isConfigured, let breaker = breakers[id] else { return try await next(request, context) }
        let decision = await breaker.admit()
        if case .reject(let until, let reason) = decision {
            var detail = reason
            if let hint = hint(id) { detail += "; \(hint)" }
            throw SeekError(.suspended(until: until), provider: id, detail: detail)
        }
        let probe = decision == .probe
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await next(request, context)
            let elapsed = clock.now - start
            await breaker.record(.success, probe: probe)
            let n = response.count
            stats?.record(provider: id, status: n == 0 ? .empty : .ok, elapsed: elapsed, count: n, error: nil)
            return response
        } catch {
            let elapsed = clock.now - start
            var seek = SeekError.wrap(error, provider: id)
            if Task.isCancelled, Self.isCancellation(seek) {
                seek = SeekError(.timeout(seconds: elapsed.seconds), provider: id, detail: "the search's deadline passed")
            }
            await breaker.record(Self.classify(seek, now: breaker.clock.now()), probe: probe)
            stats?.record(provider: id, status: ProviderStatus(error: seek), elapsed: elapsed, count: 0, error: seek)
            throw error
        }
    }

    private static func isCancellation(_ error: SeekError) -> Bool {
        if case .cancelled = error.kind { return true }
        return false
    }

    /// What an error says about the service's health.
    static func classify(_ error: SeekError, now: Date) -> BreakerOutcome {
        let retryAfter = error.retryAfter.map { max(0, $0.timeIntervalSince(now)) }
        let reason = SeekError(error.kind).cause
        switch error.kind {
        case .network, .timeout, .undecodable, .bodyTooLarge:
            return .failure(reason: reason, retryAfter: nil, rateLimited: false)
        case .httpStatus where (error.kind.statusCode ?? 0) >= 500:
            return .failure(reason: reason, retryAfter: error.kind.statusCode == 503 ? retryAfter : nil, rateLimited: false)
        case .rateLimited:
            // seek's own limiter refusing is not the service failing.
            if error.throttledLocally { return .neutral }
            return .failure(reason: "rate limited", retryAfter: retryAfter ?? error.kind.retryAfterSeconds, rateLimited: true)
        case .httpStatus, .notFound, .unauthorized:
            return .success
        default:  // .missingKey, .unsupported, .invalidInput, .suspended, .cancelled, .notRegistered, .configuration
            return .neutral
        }
    }
}
