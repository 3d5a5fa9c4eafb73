import Foundation
import SeekCore
import SeekKit

/// How a circuit breaker reacts to failures.
public struct BreakerPolicy: Sendable, Hashable {
    /// Consecutive failures that open the breaker.
    public var failureThreshold: Int
    /// The first cool-down once the threshold is reached; each further failure doubles it…
    public var baseBackoff: Duration
    /// …up to this.
    public var maxBackoff: Duration
    /// The longest `Retry-After` honoured (a server asking for a week gets this instead).
    public var maxRetryAfter: Duration
    /// How long a half-open probe holds its claim: a process that dies mid-probe frees it after this.
    public var probeLease: Duration
    /// Failures further apart than this do not add up while the breaker is closed.
    public var failureWindow: Duration

    public init(
        failureThreshold: Int = 3, baseBackoff: Duration = .seconds(30), maxBackoff: Duration = .seconds(300),
        maxRetryAfter: Duration = .seconds(86_400), probeLease: Duration = .seconds(30),
        failureWindow: Duration = .seconds(3600)
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.baseBackoff = baseBackoff
        self.maxBackoff = max(maxBackoff, baseBackoff)
        self.maxRetryAfter = maxRetryAfter
        self.probeLease = probeLease
        self.failureWindow = failureWindow
    }

    /// The cool-down after `failures` consecutive failures (threshold reached): base × 2^(failures − threshold), capped.
    public func backoff(afterFailures failures: Int) -> Duration {
        let exponent = min(30, max(0, failures - failureThreshold))
        let seconds = baseBackoff.seconds * pow(2, Double(exponent))
        return .seconds(double: min(seconds, maxBackoff.seconds))
    }
}

/// A breaker's stored state, shared by every `seek` process through its state file.
public struct BreakerState: Codable, Sendable, Hashable {
    public var consecutiveFailures: Int
    /// While set and in the future, calls are refused (cool-down); once past, the next call is a probe.
    public var openUntil: Date?
    /// When the current half-open probe began, if one is in flight.
    public var probeStartedAt: Date?
    /// Why it opened, in a few words (never a URL or a key).
    public var reason: String?
    public var lastFailureAt: Date?

    public init(consecutiveFailures: Int = 0, openUntil: Date? = nil, probeStartedAt: Date? = nil,
                reason: String? = nil, lastFailureAt: Date? = nil) {
        self.consecutiveFailures = consecutiveFailures
        self.openUntil = openUntil
        self.probeStartedAt = probeStartedAt
        self.reason = reason
        self.lastFailureAt = lastFailureAt
    }
}

/// Where a breaker stands at a given time.
public enum BreakerPhase: Sendable, Hashable {
    /// Calls go through.
    case closed
    /// Cool-down: calls are refused until the date.
    case open(until: Date)
    /// The cool-down is over: the next call is a probe that decides whether it closes.
    case halfOpen
    /// A probe is in flight (maybe in another process): other calls are refused until it ends or its lease does.
    case probing(until: Date)

    /// When calls are refused, until when.
    public var suspendedUntil: Date? {
        switch self {
        case .open(let until), .probing(let until): return until
        case .closed, .halfOpen: return nil
        }
    }
}

/// Whether a call may go ahead.
public enum BreakerDecision: Sendable, Hashable {
    case allow
    /// Allowed as the single half-open probe: its outcome closes or re-opens the breaker.
    case probe
    case reject(until: Date, reason: String)
}

/// What a finished call tells the breaker.
public enum BreakerOutcome: Sendable, Hashable {
    /// The service answered (results, not found, a rejected key: it is up).
    case success
    /// The service failed: timeout, 5xx, connection error, garbage, rate limiting.
    /// `retryAfter` (seconds) is the server's own request to wait; `rateLimited` opens at once.
    case failure(reason: String, retryAfter: Double?, rateLimited: Bool)
    /// Nothing was learnt about the service (no key, unsupported, invalid input, cancelled).
    case neutral
}

extension BreakerState {
    /// The phase at `now`.
    public func phase(at now: Date, policy: BreakerPolicy) -> BreakerPhase {
        guard let openUntil else { return .closed }
        if now < openUntil { return .open(until: openUntil) }
        if let probe = probeStartedAt, now < probe + policy.probeLease.seconds {
            return .probing(until: probe + policy.probeLease.seconds)
        }
        return .halfOpen
    }

    /// Decides about one call at `now`, claiming the probe when the breaker is half-open.
    public mutating func admit(at now: Date, policy: BreakerPolicy) -> BreakerDecision {
        switch phase(at: now, policy: policy) {
        case .closed:
            return .allow
        case .open(let until):
            return .reject(until: until, reason: reason ?? "cooling down")
        case .probing(let until):
            return .reject(until: until, reason: "a trial call is in flight after \(reason ?? "failures")")
        case .halfOpen:
            probeStartedAt = now
            return .probe
        }
    }

    /// Records how a call ended; `probe` says whether it was the half-open probe.
    public mutating func record(_ outcome: BreakerOutcome, probe: Bool, at now: Date, policy: BreakerPolicy) {
        switch outcome {
        case .success:
            self = BreakerState()
        case .neutral:
            if probe { probeStartedAt = nil }
        case .failure(let cause, let retryAfter, let rateLimited):
            if openUntil == nil, let last = lastFailureAt, now.timeIntervalSince(last) > policy.failureWindow.seconds {
                consecutiveFailures = 0
            }
            consecutiveFailures += 1
            lastFailureAt = now
            if probe { probeStartedAt = nil }
            var until: Date?
            var why = cause
            if let retryAfter, retryAfter > 0 {
                until = now + min(retryAfter, policy.maxRetryAfter.seconds)
                why = "\(cause); the server asked to wait \(SeekError.format(retryAfter.rounded(.up)))s"
            }
            let opens = probe || rateLimited || consecutiveFailures >= policy.failureThreshold
            // The server's own Retry-After names the time to come back; without one the backoff does.
            // A rate limit without Retry-After opens at once; its backoff grows like the others'.
            if opens, until == nil {
                let failures = rateLimited
                    ? consecutiveFailures + policy.failureThreshold - 1 : consecutiveFailures
                until = now + policy.backoff(afterFailures: failures).seconds
                if retryAfter == nil {
                    why = consecutiveFailures > 1 ? "\(consecutiveFailures) failures in a row, last: \(cause)" : cause
                }
            }
            if let until {
                if let current = openUntil, current > until, current > now {
                    openUntil = current
                } else {
                    openUntil = until
                    reason = why
                }
            }
        }
    }
}

/// A circuit breaker for one service, its state in a `BreakerStore` shared by every `seek` process
/// (a locked file each, by default) or every instance (a shared database).
///
/// Closed: calls go through. Repeated failures (or a 429/503 with `Retry-After`) open it until a
/// time; then exactly one call, across all sharers, is let through as a probe: success closes it,
/// failure re-opens it with a doubled cool-down (capped).
public struct CircuitBreaker: Sendable {
    /// The breaker's name in its store: `id@host` of the service it guards.
    public let key: String
    public let policy: BreakerPolicy
    /// The clock a caller measures the server's `Retry-After` on.
    public let clock: ResilienceClock
    public let store: any BreakerStore

    public init(key: String, store: any BreakerStore, policy: BreakerPolicy = BreakerPolicy(), clock: ResilienceClock = .system) {
        self.key = key
        self.store = store
        self.policy = policy
        self.clock = clock
    }

    /// A breaker whose state lives in the file at `url`.
    public init(url: URL, policy: BreakerPolicy = BreakerPolicy(), clock: ResilienceClock = .system) {
        let name = url.deletingPathExtension().lastPathComponent
        self.init(
            key: name, store: FileBreakerStore(directory: url.deletingLastPathComponent(), clock: clock), policy: policy, clock: clock)
    }

    /// Whether a call may go ahead now (claims the probe when half-open).
    public func admit() async -> BreakerDecision {
        await store.admit(key, policy: policy)
    }

    /// Records how an admitted call ended.
    public func record(_ outcome: BreakerOutcome, probe: Bool) async {
        await store.record(key, outcome: outcome, probe: probe, policy: policy)
    }

    /// The stored state.
    public var state: BreakerState {
        get async { await store.state(key) }
    }

    /// The phase now.
    public var phase: BreakerPhase {
        get async { await store.state(key).phase(at: clock.now(), policy: policy) }
    }
}
