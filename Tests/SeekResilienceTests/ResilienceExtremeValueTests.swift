import Foundation
import SeekCore
import SeekKit
import SeekResilience
import Testing

@Suite("Resilience: extreme numbers never trap")
struct ResilienceExtremeValueTests {
    @Test("a breaker told to wait 2^63, 1e19, infinity or NaN seconds opens for at most maxRetryAfter and keeps its state file",
          arguments: [Double(Int.max - 1), 1e19, 1e300, .infinity, .nan] as [Double])
    func hugeRetryAfterOpensForAtMostADay(seconds: Double) async throws {
        let fake = FakeResilienceClock()
        let url = try resilienceTemporaryDirectory().appendingPathComponent("breaker.json")
        let breaker = CircuitBreaker(url: url, policy: BreakerPolicy(), clock: fake.clock)
        await breaker.record(.failure(reason: "rate limited", retryAfter: seconds, rateLimited: true), probe: false)
        let until = try #require(await breaker.phase.suspendedUntil)
        #expect(until > fake.now)
        #expect(until <= fake.now + BreakerPolicy().maxRetryAfter.seconds)
        let stored = try Data(contentsOf: url)
        #expect(!stored.isEmpty, "the state file must hold the open breaker")
        #expect(try JSONValue(parsing: stored)["openUntil"] != nil)
    }

    @Test("the backoff after a huge number of failures is the policy's maximum")
    func backoffAfterManyFailures() {
        let policy = BreakerPolicy(failureThreshold: 1, baseBackoff: .seconds(86_400), maxBackoff: .seconds(604_800))
        #expect(policy.backoff(afterFailures: .max) == .seconds(604_800))
    }

    @Test("rates with huge, infinite, NaN or -0 numbers are rejected", arguments: [
        "1e300", "1000001", "inf", "nan", "-0", "9223372036854775808/s", "3/1e300", "3/inf", "3/nan", "3/-0",
        "3/31536001", "2, burst=1e300", "2, burst=inf", "2, burst=nan",
    ])
    func extremeRatesAreRejected(text: String) {
        #expect(RateLimit.parse(text) == nil)
    }

    @Test("config objects with huge, infinite or NaN numbers are rejected", arguments: [
        JSONValue.object(["requests": .number(1e300)]),
        .object(["requests": .string("inf")]),
        .object(["requests": .string("nan")]),
        .object(["requests": .number(2), "per": .number(1e300)]),
        .object(["requests": .number(2), "per": .string("inf")]),
        .object(["requests": .number(2), "per": .string("nan")]),
        .object(["requests": .number(2), "burst": .number(1e300)]),
        .object(["requests": .number(2), "burst": .string("nan")]),
    ])
    func extremeRateObjectsAreRejected(value: JSONValue) {
        #expect(RateLimit.parse(value) == nil)
    }

    @Test("the largest rate accepted still reads and describes itself")
    func largestRate() async throws {
        let limit = try #require(RateLimit.parse("1000000/31536000, burst=1000000") ?? nil)
        #expect(limit.description == "1000000 requests per 31536000 seconds")
    }

    @Test("a RateLimit built with NaN, infinite or huge numbers is clamped, and describes itself")
    func clampedInit() {
        let limit = RateLimit(requests: .nan, per: .seconds(1e12), burst: .infinity)
        #expect(limit.requests > 0)
        #expect(limit.per.seconds == RateLimit.maxPeriodSeconds)
        #expect(limit.burst == RateLimit.maxRequests)
        #expect(!limit.description.isEmpty)
        #expect(RateLimit(requests: 1e300).description == "1000000 requests per second")
    }

    @Test("a token bucket with the slowest rate refuses a request instead of trapping on its wait")
    func slowestRateRefuses() {
        let limit = RateLimit(requests: 1, per: .seconds(clamping: RateLimit.maxPeriodSeconds))
        var bucket = TokenBucketState(tokens: 0, updatedAt: Date(timeIntervalSince1970: 0))
        guard case .refused(let wait) = bucket.reserve(at: Date(timeIntervalSince1970: 0), limit: limit, maxWait: 10) else {
            Issue.record("a wait of a year must be refused")
            return
        }
        #expect(abs(wait - RateLimit.maxPeriodSeconds) < 1)
    }
}
