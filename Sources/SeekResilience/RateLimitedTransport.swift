import Foundation
import SeekCore
import SeekKit

/// A request rate: `requests` per `per`, with up to `burst` sent back to back.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var requests: Double
    public var per: Duration
    /// Requests that may go at once after a quiet spell (the bucket's capacity).
    public var burst: Double

    /// The bounds `parse` accepts: at most a million requests (or a burst of a million) per period, and a
    /// period of at most a year. Past them a setting is a mistake, not a rate.
    public static let maxRequests: Double = 1_000_000
    public static let maxPeriodSeconds: Double = 365 * 86_400

    /// Without `burst`, a per-second rate is strict spacing (like nginx's `limit_req` without burst) and a
    /// quota over a longer period (100 an hour) may be spent at once. Values are clamped to the bounds
    /// `parse` accepts (NaN counts as the smallest), so none can make the bucket's arithmetic trap.
    public init(requests: Double, per: Duration = .seconds(1), burst: Double? = nil) {
        let requests = Self.clamp(requests, 0.000_001, Self.maxRequests)
        self.requests = requests
        self.per = per > .zero ? min(per, .seconds(clamping: Self.maxPeriodSeconds)) : .seconds(1)
        self.burst = Self.clamp(burst ?? (per <= .seconds(1) ? 1 : requests), 1, Self.maxRequests)
    }

    private static func clamp(_ value: Double, _ lower: Double, _ upper: Double) -> Double {
        value.isNaN ? lower : min(max(value, lower), upper)
    }

    /// Tokens per second.
    public var ratePerSecond: Double { requests / per.seconds }

    public var description: String {
        let count = SeekError.format(requests)
        let unit: String
        switch per.seconds {
        case 1: unit = "second"
        case 60: unit = "minute"
        case 3600: unit = "hour"
        case 86_400: unit = "day"
        default: unit = "\(SeekError.format(per.seconds)) seconds"
        }
        let burstText = burst > 1 && burst != requests ? ", bursts of \(SeekError.format(burst))" : ""
        return "\(count) \(requests == 1 ? "request" : "requests") per \(unit)\(burstText)"
    }

    /// Parses `2`, `2/s`, `100/h`, `5000/d`, `30/60` (per 60 seconds), each optionally followed by
    /// `,burst=N`. `off`, `none` and `0` mean no limit (`.some(nil)`); anything else is nil, numbers
    /// outside `maxRequests` and `maxPeriodSeconds` (or NaN, infinity) included.
    public static func parse(_ text: String) -> RateLimit?? {
        let parts = text.lowercased().split(separator: ",").map { $0.trimmed() }
        guard let head = parts.first, !head.isEmpty else { return nil }
        if ["off", "none", "0", "unlimited"].contains(head) { return .some(nil) }
        var burst: Double?
        for extra in parts.dropFirst() {
            let pair = extra.split(separator: "=", maxSplits: 1).map { $0.trimmed() }
            guard pair.count == 2, pair[0] == "burst", let value = Double(pair[1]), value >= 1, value <= maxRequests else { return nil }
            burst = value
        }
        let fraction = head.split(separator: "/", maxSplits: 1).map { $0.trimmed() }
        guard let first = fraction.first, let requests = Double(first), requests > 0, requests <= maxRequests else { return nil }
        var seconds = 1.0
        if fraction.count == 2 {
            switch fraction[1] {
            case "s", "sec", "second": seconds = 1
            case "m", "min", "minute": seconds = 60
            case "h", "hour": seconds = 3600
            case "d", "day": seconds = 86_400
            default:
                guard let value = Double(fraction[1]), value > 0, value <= maxPeriodSeconds else { return nil }
                seconds = value
            }
        }
        return .some(RateLimit(requests: requests, per: .seconds(double: seconds), burst: burst))
    }

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
            CallObserver.current?.noteThrottledLocally()
            throw SeekError(
                .rateLimited(retryAfterSeconds: wait.rounded(.up)),
                detail: "seek's own limit for \(host) (\(limit)) would make this request wait \(SeekError.format(wait.rounded(.up)))s")
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
