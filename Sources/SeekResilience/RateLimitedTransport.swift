import Foundation
import SeekCore
import SeekKit

extension RateLimit {
    /// Reads a config value: a number (per second), a string as in `parse`, or
    /// `{"requests": N, "per": seconds, "burst": B}`. `.some(nil)` means no limit; nil means invalid.
    public static func parse(_ value: JSONValue) -> RateLimit?? {
        if let text = value.stringValue { return parse(text) }
        if let number = value.doubleValue {
            return number <= 0 ? .some(nil) : .some(RateLimit(requests: number))
        }
        guard value.objectValue != nil, let requests = value["requests"]?.doubleValue, requests >= 0,
              requests <= maxRequests
        else { return nil }
        if requests == 0 { return .some(nil) }
        let per = value["per"]?.doubleValue ?? 1
        guard per > 0, per <= maxPeriodSeconds else { return nil }
        let burst = value["burst"]?.doubleValue
        if let burst, !(burst >= 1 && burst <= maxRequests) { return nil }
        return .some(RateLimit(requests: requests, per: .seconds(double: per), burst: burst))
    }
}

/// A token bucket's stored state: tokens left (negative while requests are queued for later) and when counted.
public struct TokenBucketState: Codable, Sendable, Hashable {
    public var tokens: Double
    public var updatedAt: Date

    public init(tokens: Double, updatedAt: Date) {
        self.tokens = tokens
        self.updatedAt = updatedAt
    }

    /// The answer to one request for a token.
    public enum Reservation: Sendable, Hashable {
        /// Taken: send after waiting this many seconds (0: now).
        case granted(wait: Double)
        /// Not taken: a token would only be free after this many seconds, more than the caller can wait.
        case refused(wait: Double)
    }

    /// Takes a token for a request that may wait at most `maxWait` seconds. Tokens taken ahead of time make
    /// later callers wait longer, so concurrent callers — in any process — are spaced out fairly.
    public mutating func reserve(at now: Date, limit: RateLimit, maxWait: Double) -> Reservation {
        let elapsed = max(0, now.timeIntervalSince(updatedAt))
        tokens = min(limit.burst, tokens + elapsed * limit.ratePerSecond)
        updatedAt = max(updatedAt, now)
        if tokens >= 1 {
            tokens -= 1
            return .granted(wait: 0)
        }
        let wait = (1 - tokens) / limit.ratePerSecond
        guard wait <= maxWait else { return .refused(wait: wait) }
        tokens -= 1
        return .granted(wait: wait)
    }
}

/// An `HTTPTransport` that keeps requests to each host under a rate limit: a token bucket per host in a
/// `RateLimitStore`, so every request of this process and of every other sharing the store (the
/// processes sharing a cache directory, or the instances sharing a database) draws from the same bucket.
///
/// Waiting for a token respects cancellation and the request's timeout: when the wait would not fit,
/// the request fails at once with `.rateLimited` (retry after the wait) instead of being sent.
public struct RateLimitedTransport: HTTPTransport {
    public let base: any HTTPTransport
    public let limit: RateLimit?
    /// Where the buckets are kept.
    public let store: any RateLimitStore
    /// Leaves loopback hosts (127.0.0.1, localhost, ::1) unlimited: a default limit protects public
    /// services, not a server of one's own; an explicitly configured limit applies everywhere.
    public let exemptLoopback: Bool
    private let clock: ResilienceClock

    public init(
        _ base: any HTTPTransport, limit: RateLimit?, store: any RateLimitStore, exemptLoopback: Bool = false,
        clock: ResilienceClock = .system
    ) {
        self.base = base
        self.limit = limit
        self.store = store
        self.exemptLoopback = exemptLoopback
        self.clock = clock
    }

    /// Buckets in locked files under `<stateDirectory>/ratelimit/`, or in this process only when nil.
    public init(
        _ base: any HTTPTransport, limit: RateLimit?, stateDirectory: URL?, exemptLoopback: Bool = false,
        clock: ResilienceClock = .system
    ) {
        let directory = stateDirectory?.appendingPathComponent("ratelimit")
        self.init(base, limit: limit, store: FileRateLimitStore(directory: directory, clock: clock), exemptLoopback: exemptLoopback, clock: clock)
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let limit, let host = Self.hostKey(request.url),
              !(exemptLoopback && Self.isLoopback(request.url)) else {
            return try await base.send(request)
        }
        let start = clock.now()
        let maxWait = max(0, request.timeout.seconds - 0.25)
        let reservation = await store.reserve(host, limit: limit, maxWait: maxWait)
        switch reservation {
        case .refused(let wait):
            throw SeekError(
                .rateLimited(retryAfterSeconds: wait.rounded(.up)),
                detail: "seek's own limit for \(host) (\(limit)) would make this request wait \(SeekError.format(wait.rounded(.up)))s",
                throttledLocally: true)
        case .granted(let wait):
            var outgoing = request
            if wait > 0 {
                try await clock.sleep(.seconds(double: wait))
                outgoing.timeout = .seconds(double: request.timeout.seconds - clock.now().timeIntervalSince(start))
            }
            return try await base.send(outgoing)
        }
    }

    /// `host` or `host:port` of a URL, lowercased.
    public static func hostKey(_ url: URL) -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
