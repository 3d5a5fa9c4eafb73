import Foundation
import SeekCore
import SeekKit

/// The limits Crossref announces on every answer — `x-rate-limit-limit` requests per
/// `x-rate-limit-interval` (`1s`), at most `x-concurrency-limit` at once — kept to by this provider's
/// calls: they changed on 1 December 2025 and differ by pool, so they are read, not hard-coded. Until an
/// answer names them nothing is held back here (the factory's default rate limit still applies).
final class CrossrefPace: Sendable {
    struct Announced: Equatable {
        var limit: Int
        var interval: Duration
        var concurrency: Int?
    }

    private struct State {
        var announced: Announced?
        /// When the calls of the current interval started, oldest first.
        var starts: [ContinuousClock.Instant] = []
        var inFlight = 0
    }

    private let state = Locked(State())
    private let clock = ContinuousClock()
    /// Whether the announced rate and concurrency hold calls back at all.
    let followsAnnouncedRate: Bool
    /// A concurrency set by the user, over the announced one: a number, or `.some(nil)` for no bound.
    let concurrencyOverride: Int??

    init(followsAnnouncedRate: Bool = true, concurrency: Int?? = nil) {
        self.followsAnnouncedRate = followsAnnouncedRate
        self.concurrencyOverride = concurrency
    }
    /// How long one call waits for a slot at most before it goes anyway (the call's deadline is shorter).
    static let maxWait: Duration = .seconds(5)
    static let poll: Duration = .milliseconds(20)
    /// How many starts are kept while no limit is known.
    static let remembered = 64

    var announced: Announced? { state.withLock { $0.announced } }

    /// The announced interval, when there is one: how long to wait after a 429 that names no time.
    var interval: Duration? { announced?.interval }

    /// Waits until a call may start under the announced limits, then counts it as started. Call
    /// `finished()` when it is done.
    func wait() async throws {
        let deadline = clock.now + Self.maxWait
        let follows = followsAnnouncedRate
        let override = concurrencyOverride
        while true {
            let now = clock.now
            let delay: Duration? = state.withLock { state in
                let announced = state.announced
                if let announced {
                    state.starts.removeAll { now - $0 >= announced.interval }
                } else if state.starts.count >= Self.remembered {
                    // Starts are counted before any limit is known, so the first answer's limit covers them.
                    state.starts.removeFirst(state.starts.count - Self.remembered + 1)
                }
                let rateFull = follows && announced.map { state.starts.count >= $0.limit } == true
                let bound = override ?? (follows ? announced?.concurrency : nil)
                let busy = bound.map { state.inFlight >= $0 } ?? false
                if (!rateFull && !busy) || now >= deadline {
                    state.starts.append(now)
                    state.inFlight += 1
                    return nil
                }
                if rateFull, let announced, let oldest = state.starts.first {
                    return max(Self.poll, announced.interval - (now - oldest))
                }
                return Self.poll
            }
            guard let delay else { return }
            try await Task.sleep(for: min(delay, Self.maxWait))
        }
    }

    func finished() {
        state.withLock { $0.inFlight = max(0, $0.inFlight - 1) }
    }

    /// Reads the limits a response announces; a response that names none leaves them as they were.
    func learn(from response: HTTPResponse) {
        guard let announced = Self.parse(response) else { return }
        state.withLock { $0.announced = announced }
    }

    static func parse(_ response: HTTPResponse) -> Announced? {
        guard let limit = response.header("x-rate-limit-limit").flatMap({ Int($0.trimmed()) }), limit > 0, limit <= 10_000,
              let interval = response.header("x-rate-limit-interval").flatMap(Self.duration) else { return nil }
        let concurrency = response.header("x-concurrency-limit").flatMap { Int($0.trimmed()) }.flatMap { (1...1000).contains($0) ? $0 : nil }
        return Announced(limit: limit, interval: interval, concurrency: concurrency)
    }

    /// `1s`, `500ms`, `2m` or a bare number of seconds, between 1 ms and an hour; nil otherwise.
    static func duration(_ text: String) -> Duration? {
        let text = text.trimmed().lowercased()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]
        var seconds: Double?
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            seconds = Double(text.dropLast(suffix.count)).map { $0 * scale }
            break
        }
        if seconds == nil { seconds = Double(text) }
        guard let seconds, seconds.isFinite, seconds >= 0.001, seconds <= 3600 else { return nil }
        return .milliseconds(Int((seconds * 1000).rounded()))
    }
}
