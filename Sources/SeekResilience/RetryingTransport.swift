import Foundation
import SeekCore
import SeekKit

/// When and how often a GET is tried again.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (1 turns retries off).
    public var maxAttempts: Int
    /// The backoff ceiling before the first retry; it doubles per retry (full jitter: a random wait below it).
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A 429 or 503 whose `Retry-After` is at most this long is retried after exactly that wait.
    public var maxRetryAfter: Duration
    /// A retry is only started when at least this much of the request's time budget is left after the wait.
    public var minimumAttemptTime: Duration

    public init(
        maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(2),
        maxRetryAfter: Duration = .seconds(2), minimumAttemptTime: Duration = .milliseconds(250)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = max(maxDelay, baseDelay)
        self.maxRetryAfter = maxRetryAfter
        self.minimumAttemptTime = minimumAttemptTime
    }

    /// The upper bound of the jittered wait before retry number `retry` (1-based): base × 2^(retry−1), capped.
    public func backoffCeiling(retry: Int) -> Duration {
        let seconds = baseDelay.seconds * pow(2, Double(min(30, max(0, retry - 1))))
        return .seconds(double: min(seconds, maxDelay.seconds))
    }
}

/// An `HTTPTransport` that retries GETs on connection errors and on 502/503/504 with full-jitter
/// exponential backoff, never past the request's own time budget, and never on other 4xx (a 429 only
/// when its `Retry-After` is short). A `Retry-After` too long to wait for stays on the response it returns,
/// for the provider's error to carry to the circuit breaker.
public struct RetryingTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let policy: RetryPolicy
    private let clock: ResilienceClock
    private let random: @Sendable (Double) -> Double

    /// `random(upper)` returns a value in `0...upper` (injectable so tests can pin the jitter).
    public init(
        _ base: any HTTPTransport, policy: RetryPolicy = RetryPolicy(), clock: ResilienceClock = .system,
        random: @escaping @Sendable (Double) -> Double = { Double.random(in: 0...max(0, $0)) }
    ) {
        self.base = base
        self.policy = policy
        self.clock = clock
        self.random = random
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let method = request.method.uppercased()
        guard method == "GET" || method == "HEAD" else { return try await base.send(request) }
        let deadline = clock.now() + request.timeout.seconds
        var attempt = 1
        var outgoing = request
        while true {
            let wait: Duration
            do {
                let response = try await base.send(outgoing)
                guard attempt < policy.maxAttempts, let delay = retryDelay(for: response, retry: attempt) else {
                    return response
                }
                guard fits(delay, before: deadline) else { return response }
                wait = delay
            } catch let error as SeekError where Self.isTransient(error) && attempt < policy.maxAttempts {
                let delay = jittered(retry: attempt)
                guard fits(delay, before: deadline) else { throw error }
                wait = delay
            }
            try await clock.sleep(wait)
            attempt += 1
            outgoing.timeout = .seconds(double: deadline.timeIntervalSince(clock.now()))
        }
    }

    /// Connection-level failures worth another try (not timeouts, oversize bodies or cancellations).
    static func isTransient(_ error: SeekError) -> Bool {
        if case .network = error.kind { return true }
        return false
    }

    /// The wait before retrying after `response`, or nil when it must not be retried.
    func retryDelay(for response: HTTPResponse, retry: Int) -> Duration? {
        let retryAfter = response.retryAfter(now: clock.now())
        switch response.status {
        case 429, 503:
            if let retryAfter {
                return retryAfter <= policy.maxRetryAfter.seconds ? .seconds(double: retryAfter) : nil
            }
            return response.status == 503 ? jittered(retry: retry) : nil
        case 502, 504:
            return jittered(retry: retry)
        default:
            return nil
        }
    }

    private func jittered(retry: Int) -> Duration {
        let ceiling = policy.backoffCeiling(retry: retry).seconds
        return .seconds(double: min(ceiling, max(0, random(ceiling))))
    }

    private func fits(_ wait: Duration, before deadline: Date) -> Bool {
        clock.now() + wait.seconds + policy.minimumAttemptTime.seconds <= deadline
    }
}
