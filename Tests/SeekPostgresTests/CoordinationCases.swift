import Foundation
import NIOConcurrencyHelpers
import SeekCore
@testable import SeekPostgres
import SeekResilience
import SeekStore
import Testing

// One table of cases for each rule the two kinds of store both keep: the circuit breaker, the
// rate-limit bucket and the history's trim. The embedded stores run the Swift (BreakerState,
// TokenBucketState, SQLite), the shared store runs the PostgreSQL functions (SQL/breaker.sql,
// SQL/bucket.sql, seek_history_record); each case runs through both on a clock of its own, and both
// must give what the case says. The PostgreSQL half runs when SEEK_TEST_DATABASE_URL is set.

/// A clock that moves only when a case says so.
final class CaseClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    init(start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = NIOLockedValueBox(start)
    }

    var now: Date { current.withLockedValue { $0 } }

    func advance(_ seconds: Double) {
        current.withLockedValue { $0 += seconds }
    }

    var clock: ResilienceClock {
        ResilienceClock(now: { [self] in now }, sleep: { [self] duration in advance(duration.seconds) })
    }
}

// MARK: - The breaker

/// What a breaker should answer a call, its times in seconds from the case's now.
enum ExpectedDecision: Sendable, CustomStringConvertible {
    case allow
    case probe
    case reject(inSeconds: Double, reason: String)

    /// Whether `decision`, taken at `now`, is this one (times to a millisecond: the database keeps microseconds).
    func matches(_ decision: BreakerDecision, at now: Date) -> Bool {
        switch (self, decision) {
        case (.allow, .allow), (.probe, .probe): return true
        case (.reject(let seconds, let reason), .reject(let until, let actual)):
            return abs(until.timeIntervalSince(now) - seconds) < 0.001 && reason == actual
        default: return false
        }
    }

    var description: String {
        switch self {
        case .allow: "allow"
        case .probe: "probe"
        case .reject(let seconds, let reason): "reject for \(seconds)s (\(reason))"
        }
    }
}

/// One step of a breaker case.
enum BreakerStep: Sendable {
    /// The clock moves on this many seconds.
    case wait(Double)
    /// A call asks to go ahead.
    case admit(ExpectedDecision)
    /// A call ends; `probe` says whether it was the half-open probe.
    case record(BreakerOutcome, probe: Bool)
    /// The stored state: consecutive failures, open until (seconds from now; nil: never opened or
    /// closed again) and why.
    case state(failures: Int, openFor: Double?, reason: String?)
}

struct BreakerCase: Sendable, CustomTestStringConvertible {
    let name: String
    let steps: [BreakerStep]

    var testDescription: String { name }

    static let policy = BreakerPolicy(
        failureThreshold: 3, baseBackoff: .seconds(30), maxBackoff: .seconds(300), maxRetryAfter: .seconds(3600),
        probeLease: .seconds(30), failureWindow: .seconds(3600))

    static func fail(_ reason: String, retryAfter: Double? = nil, rateLimited: Bool = false, probe: Bool = false) -> BreakerStep {
        .record(.failure(reason: reason, retryAfter: retryAfter, rateLimited: rateLimited), probe: probe)
    }

    static let all: [BreakerCase] = [
        BreakerCase(name: "three failures in a row open it for the base backoff; then one probe, whose success closes it", steps: [
            .admit(.allow), fail("HTTP 503"), fail("HTTP 503"),
            .state(failures: 2, openFor: nil, reason: nil),
            .admit(.allow), fail("HTTP 503"),
            .admit(.reject(inSeconds: 30, reason: "3 failures in a row, last: HTTP 503")),
            .wait(29.5), .admit(.reject(inSeconds: 0.5, reason: "3 failures in a row, last: HTTP 503")),
            .wait(0.5), .admit(.probe),
            .admit(.reject(inSeconds: 30, reason: "a trial call is in flight after 3 failures in a row, last: HTTP 503")),
            .record(.success, probe: true),
            .state(failures: 0, openFor: nil, reason: nil), .admit(.allow),
        ]),
        BreakerCase(name: "a failed probe opens it again for twice as long", steps: [
            fail("timeout"), fail("timeout"), fail("timeout"), .wait(30), .admit(.probe), fail("timeout", probe: true),
            .admit(.reject(inSeconds: 60, reason: "4 failures in a row, last: timeout")),
            .state(failures: 4, openFor: 60, reason: "4 failures in a row, last: timeout"),
            .wait(60), .admit(.probe), fail("timeout", probe: true),
            .admit(.reject(inSeconds: 120, reason: "5 failures in a row, last: timeout")),
        ]),
        BreakerCase(name: "the cool-down stops growing at maxBackoff", steps: [
            fail("HTTP 500"), fail("HTTP 500"), fail("HTTP 500"), fail("HTTP 500"), fail("HTTP 500"), fail("HTTP 500"),
            .admit(.reject(inSeconds: 240, reason: "6 failures in a row, last: HTTP 500")),
            fail("HTTP 500"),
            .admit(.reject(inSeconds: 300, reason: "7 failures in a row, last: HTTP 500")),
        ]),
        BreakerCase(name: "a 429 with Retry-After opens it at once until the time the server named", steps: [
            fail("HTTP 429", retryAfter: 120, rateLimited: true),
            .admit(.reject(inSeconds: 120, reason: "HTTP 429; the server asked to wait 120s")),
            .state(failures: 1, openFor: 120, reason: "HTTP 429; the server asked to wait 120s"),
            .wait(120), .admit(.probe),
        ]),
        BreakerCase(name: "a rate limit without Retry-After opens it at once for the base backoff, growing like the others'", steps: [
            fail("HTTP 429", rateLimited: true),
            .admit(.reject(inSeconds: 30, reason: "HTTP 429")),
            .wait(30), .admit(.probe), fail("HTTP 429", rateLimited: true, probe: true),
            .admit(.reject(inSeconds: 60, reason: "2 failures in a row, last: HTTP 429")),
        ]),
        BreakerCase(name: "a Retry-After past maxRetryAfter holds it for maxRetryAfter", steps: [
            fail("HTTP 503", retryAfter: 1_000_000),
            .admit(.reject(inSeconds: 3600, reason: "HTTP 503; the server asked to wait 1000000s")),
        ]),
        BreakerCase(name: "a Retry-After of NaN, zero or less is no wait; the third failure opens with the backoff", steps: [
            fail("HTTP 503", retryAfter: .nan), .state(failures: 1, openFor: nil, reason: nil),
            fail("HTTP 503", retryAfter: 0), fail("HTTP 503", retryAfter: -5),
            .admit(.reject(inSeconds: 30, reason: "HTTP 503")),
        ]),
        BreakerCase(name: "failures further apart than the window do not add up", steps: [
            fail("HTTP 500"), fail("HTTP 500"), .wait(3601), fail("HTTP 500"),
            .state(failures: 1, openFor: nil, reason: nil), .admit(.allow),
            fail("HTTP 500"), fail("HTTP 500"),
            .admit(.reject(inSeconds: 30, reason: "3 failures in a row, last: HTTP 500")),
        ]),
        BreakerCase(name: "a success resets the count", steps: [
            fail("HTTP 500"), fail("HTTP 500"), .record(.success, probe: false), fail("HTTP 500"), fail("HTTP 500"),
            .state(failures: 2, openFor: nil, reason: nil), .admit(.allow),
        ]),
        BreakerCase(name: "a probe that teaches nothing frees the claim: the next call is the probe", steps: [
            fail("HTTP 502"), fail("HTTP 502"), fail("HTTP 502"), .wait(30), .admit(.probe),
            .record(.neutral, probe: true),
            .state(failures: 3, openFor: 0, reason: "3 failures in a row, last: HTTP 502"),
            .admit(.probe),
        ]),
        BreakerCase(name: "an abandoned probe's lease runs out: the next call is the probe", steps: [
            fail("HTTP 502"), fail("HTTP 502"), fail("HTTP 502"), .wait(30), .admit(.probe),
            .wait(29), .admit(.reject(inSeconds: 1, reason: "a trial call is in flight after 3 failures in a row, last: HTTP 502")),
            .wait(1), .admit(.probe),
        ]),
        BreakerCase(name: "a shorter Retry-After does not cut a longer cool-down short", steps: [
            fail("HTTP 503", retryAfter: 600),
            fail("HTTP 429", retryAfter: 10, rateLimited: true),
            .admit(.reject(inSeconds: 600, reason: "HTTP 503; the server asked to wait 600s")),
            .state(failures: 2, openFor: 600, reason: "HTTP 503; the server asked to wait 600s"),
        ]),
    ]

    /// Runs the case through `store` on `clock`; every step that disagrees with the case is an issue.
    func run(through store: any BreakerStore, clock: CaseClock, store name: String) async {
        let key = "case-\(UUID().uuidString)@example.org"
        for (index, step) in steps.enumerated() {
            let now = clock.now
            let context: Comment = "\(name): \(self.name), step \(index + 1)"
            switch step {
            case .wait(let seconds):
                clock.advance(seconds)
            case .admit(let expected):
                let decision = await store.admit(key, policy: Self.policy)
                #expect(expected.matches(decision, at: now), "\(context): expected \(expected), got \(decision)")
            case .record(let outcome, let probe):
                await store.record(key, outcome: outcome, probe: probe, policy: Self.policy)
            case .state(let failures, let openFor, let reason):
                let state = await store.state(key)
                #expect(state.consecutiveFailures == failures, context)
                #expect(state.reason == reason, context)
                switch (openFor, state.openUntil) {
                case (nil, nil): break
                case (let seconds?, let until?):
                    #expect(abs(until.timeIntervalSince(now) - seconds) < 0.001, "\(context): open until \(until)")
                default:
                    Issue.record("\(context): expected open for \(String(describing: openFor)), stored \(String(describing: state.openUntil))")
                }
            }
        }
    }
}

// MARK: - The bucket

/// What a request for a token should get: granted after a wait, or refused (a token would be free after the wait).
enum ExpectedReservation: Sendable, CustomStringConvertible {
    case granted(wait: Double)
    case refused(wait: Double)

    func matches(_ reservation: TokenBucketState.Reservation) -> Bool {
        switch (self, reservation) {
        case (.granted(let expected), .granted(let wait)), (.refused(let expected), .refused(let wait)):
            return abs(expected - wait) < 0.000_1
        default: return false
        }
    }

    var description: String {
        switch self {
        case .granted(let wait): "granted after \(wait)s"
        case .refused(let wait): "refused (\(wait)s)"
        }
    }
}

enum BucketStep: Sendable {
    case wait(Double)
    /// A request that may wait at most `maxWait` seconds asks for a token.
    case reserve(maxWait: Double, ExpectedReservation)
}

struct BucketCase: Sendable, CustomTestStringConvertible {
    let name: String
    let limit: RateLimit
    let steps: [BucketStep]

    var testDescription: String { name }

    static let all: [BucketCase] = [
        BucketCase(name: "a burst of two at one a second: two at once, then one a second", limit: RateLimit(requests: 1, burst: 2), steps: [
            .reserve(maxWait: 10, .granted(wait: 0)), .reserve(maxWait: 10, .granted(wait: 0)),
            .reserve(maxWait: 10, .granted(wait: 1)), .reserve(maxWait: 10, .granted(wait: 2)),
        ]),
        BucketCase(name: "a wait longer than the request may wait is refused and takes nothing", limit: RateLimit(requests: 1), steps: [
            .reserve(maxWait: 0.5, .granted(wait: 0)), .reserve(maxWait: 0.5, .refused(wait: 1)),
            .reserve(maxWait: 0.5, .refused(wait: 1)), .wait(0.5), .reserve(maxWait: 0.5, .granted(wait: 0.5)),
        ]),
        BucketCase(name: "tokens come back with time, never more than the burst", limit: RateLimit(requests: 2, burst: 3), steps: [
            .reserve(maxWait: 1, .granted(wait: 0)), .reserve(maxWait: 1, .granted(wait: 0)), .reserve(maxWait: 1, .granted(wait: 0)),
            .wait(10),
            .reserve(maxWait: 1, .granted(wait: 0)), .reserve(maxWait: 1, .granted(wait: 0)), .reserve(maxWait: 1, .granted(wait: 0)),
            .reserve(maxWait: 1, .granted(wait: 0.5)),
        ]),
        BucketCase(name: "tokens taken ahead make later requests wait longer: five a second are spaced 0.2 s", limit: RateLimit(requests: 5), steps: [
            .reserve(maxWait: 1, .granted(wait: 0)), .reserve(maxWait: 1, .granted(wait: 0.2)),
            .reserve(maxWait: 1, .granted(wait: 0.4)), .reserve(maxWait: 1, .granted(wait: 0.6)),
            .wait(0.2), .reserve(maxWait: 1, .granted(wait: 0.6)),
        ]),
        BucketCase(name: "one a minute for a request that cannot wait", limit: RateLimit(requests: 1, per: .seconds(60)), steps: [
            .reserve(maxWait: 0, .granted(wait: 0)), .reserve(maxWait: 0, .refused(wait: 60)),
            .wait(30), .reserve(maxWait: 0, .refused(wait: 30)), .wait(30), .reserve(maxWait: 0, .granted(wait: 0)),
        ]),
    ]

    func run(through store: any RateLimitStore, clock: CaseClock, store name: String) async {
        let key = "case-\(UUID().uuidString).example.org"
        for (index, step) in steps.enumerated() {
            switch step {
            case .wait(let seconds):
                clock.advance(seconds)
            case .reserve(let maxWait, let expected):
                let reservation = await store.reserve(key, limit: limit, maxWait: maxWait)
                #expect(expected.matches(reservation), "\(name): \(self.name), step \(index + 1): expected \(expected), got \(reservation)")
            }
        }
    }
}

// MARK: - The history's trim

/// Searches recorded (query, time in seconds) into a history of `limit`, and what it lists after them.
struct HistoryCase: Sendable, CustomTestStringConvertible {
    let name: String
    let limit: Int
    let searches: [(query: String, at: Double)]
    let listed: [String]

    var testDescription: String { name }

    static let all: [HistoryCase] = [
        HistoryCase(
            name: "a repeated query moves to its new time; the newest `limit` kept", limit: 3,
            searches: [("Dune", 1), ("harbor", 2), ("  DUNE ", 3), ("cat", 4), ("river", 5)], listed: ["river", "cat", "DUNE"]),
        HistoryCase(
            name: "a search recorded with an earlier time goes below the newer ones, and out past the limit", limit: 3,
            searches: [("a", 10), ("b", 20), ("c", 30), ("d", 5)], listed: ["c", "b", "a"]),
        HistoryCase(
            name: "a search recorded late with a time between others takes its place by time", limit: 3,
            searches: [("a", 10), ("b", 20), ("c", 30), ("e", 25)], listed: ["c", "e", "b"]),
        HistoryCase(
            name: "at the same time, the search recorded last comes first", limit: 3,
            searches: [("x", 7), ("y", 7), ("z", 7), ("x", 7)], listed: ["x", "z", "y"]),
        HistoryCase(name: "a limit of 0 keeps none", limit: 0, searches: [("a", 1), ("b", 2)], listed: []),
    ]

    func run(through store: any HistoryStore, store name: String) async throws {
        for search in searches {
            try await store.record(query: search.query, providers: ["openlibrary"], at: Date(timeIntervalSince1970: search.at))
        }
        let entries = try await store.entries()
        #expect(entries.map(\.query) == listed, "\(name): \(self.name)")
    }
}

// MARK: - The suites

/// A breaker store that must never be asked: the shared store falls back to it only when the database
/// does not answer, and then the case would not have tested the database.
struct UnaskedBreakerStore: BreakerStore {
    func admit(_ key: String, policy: BreakerPolicy) async -> BreakerDecision {
        Issue.record("the database did not answer: the fallback breaker was asked")
        return .allow
    }

    func record(_ key: String, outcome: BreakerOutcome, probe: Bool, policy: BreakerPolicy) async {
        Issue.record("the database did not answer: the fallback breaker was asked")
    }

    func state(_ key: String) async -> BreakerState {
        Issue.record("the database did not answer: the fallback breaker was asked")
        return BreakerState()
    }

    func reset(provider id: String) async {}
}

/// As `UnaskedBreakerStore`, for buckets.
struct UnaskedRateLimitStore: RateLimitStore {
    func reserve(_ key: String, limit: RateLimit, maxWait: Double) async -> TokenBucketState.Reservation {
        Issue.record("the database did not answer: the fallback bucket was asked")
        return .refused(wait: .infinity)
    }
}

@Suite("Breaker, bucket and history cases through the embedded stores")
struct EmbeddedCoordinationCaseTests {
    @Test("the embedded breaker (a state file per breaker)", arguments: BreakerCase.all)
    func breaker(_ testCase: BreakerCase) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-cases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = CaseClock()
        await testCase.run(through: FileBreakerStore(directory: folder, clock: clock.clock), clock: clock, store: "embedded")
    }

    @Test("the embedded bucket (a state file per host)", arguments: BucketCase.all)
    func bucket(_ testCase: BucketCase) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-cases-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = CaseClock()
        await testCase.run(through: FileRateLimitStore(directory: folder, clock: clock.clock), clock: clock, store: "embedded")
    }

    @Test("the bucket in memory (one per client address)", arguments: BucketCase.all)
    func memoryBucket(_ testCase: BucketCase) async {
        let clock = CaseClock()
        await testCase.run(through: MemoryRateLimitStore(clock: clock.clock), clock: clock, store: "memory")
    }

    @Test("the embedded history (SQLite)", arguments: HistoryCase.all)
    func history(_ testCase: HistoryCase) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seek-cases-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = SQLiteHistoryStore(database: SeekDatabase(directory: folder), limit: testCase.limit)
        try await testCase.run(through: store, store: "SQLite")
    }
}

@Suite(
    "Breaker, bucket and history cases through PostgreSQL", .enabled(if: TestDatabase.url != nil, TestDatabase.skipReason),
    .serialized)
struct PostgresCoordinationCaseTests {
    /// One database for every case (each uses keys or an owner of its own).
    static let database = Task { try await TestDatabase.open("cases") }

    @Test("the shared breaker (seek_breaker_admit, seek_breaker_record)", arguments: BreakerCase.all)
    func breaker(_ testCase: BreakerCase) async throws {
        let clock = CaseClock()
        let store = PostgresBreakerStore(database: try await Self.database.value, fallback: UnaskedBreakerStore(), clock: clock.clock)
        await testCase.run(through: store, clock: clock, store: "PostgreSQL")
    }

    @Test("the shared bucket (seek_bucket_reserve)", arguments: BucketCase.all)
    func bucket(_ testCase: BucketCase) async throws {
        let clock = CaseClock()
        let store = PostgresRateLimitStore(database: try await Self.database.value, fallback: UnaskedRateLimitStore(), clock: clock.clock)
        await testCase.run(through: store, clock: clock, store: "PostgreSQL")
    }

    @Test("the shared history (seek_history_record)", arguments: HistoryCase.all)
    func history(_ testCase: HistoryCase) async throws {
        let store = PostgresHistoryStore(database: try await Self.database.value, limit: testCase.limit, owner: "v:\(UUID().uuidString)")
        try await testCase.run(through: store, store: "PostgreSQL")
    }

    @Test("without a clock of its own the shared breaker keeps the database's: a 429 holds for the time named from now")
    func databaseClock() async throws {
        let store = PostgresBreakerStore(database: try await Self.database.value, fallback: UnaskedBreakerStore())
        let key = "clock-\(UUID().uuidString)@example.org"
        await store.record(key, outcome: .failure(reason: "HTTP 429", retryAfter: 45, rateLimited: true), probe: false, policy: BreakerCase.policy)
        guard case .reject(let until, _) = await store.admit(key, policy: BreakerCase.policy) else {
            Issue.record("a breaker opened by a 429 must refuse the next call")
            return
        }
        #expect(abs(until.timeIntervalSinceNow - 45) < 5)
    }
}
