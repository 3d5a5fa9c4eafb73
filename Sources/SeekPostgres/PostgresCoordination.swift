import Foundation
import PostgresNIO
import SeekCore
import SeekResilience
import SeekStore

/// Circuit breakers in the shared database: a 429 or an open breaker seen by one instance holds for all
/// until the time it names; failures count across instances and any instance's success resets them;
/// one trial call after a cool-down, fleet-wide. Each transition is one function call
/// (`seek_breaker_admit`, `seek_breaker_record`, SQL/breaker.sql) timed by the database's clock.
///
/// When the database cannot be reached, `fallback` (the instance's own files) decides.
package struct PostgresBreakerStore: BreakerStore {
    package let database: SharedDatabase
    package let fallback: any BreakerStore
    /// The time of each call; nil (every instance of seek) the database's clock, one for the fleet.
    /// Tests step a clock of their own through the cases the embedded store runs.
    package let clock: ResilienceClock?

    package init(database: SharedDatabase, fallback: any BreakerStore, clock: ResilienceClock? = nil) {
        self.database = database
        self.fallback = fallback
        self.clock = clock
    }

    package func admit(_ key: String, policy: BreakerPolicy) async -> BreakerDecision {
        let lease = policy.probeLease.seconds
        let now = clock?.now().timeIntervalSince1970
        let answer = try? await database.run("ask a breaker") { client in
            let rows = try await client.query(
                "SELECT out_decision, out_until, out_reason FROM seek_breaker_admit(\(key), \(lease), \(now))")
            for try await row in rows.decode((String, Double?, String?).self) { return row }
            throw StoreError(operation: "ask a breaker", path: database.location, reason: "no answer row")
        }
        guard let (decision, until, reason) = answer else { return await fallback.admit(key, policy: policy) }
        switch decision {
        case "probe": return .probe
        case "reject": return .reject(until: Date(timeIntervalSince1970: until ?? 0), reason: reason ?? "cooling down")
        default: return .allow
        }
    }

    package func record(_ key: String, outcome: BreakerOutcome, probe: Bool, policy: BreakerPolicy) async {
        var (name, cause, retryAfter, retryReason, rateLimited) = ("neutral", "", nil as Double?, nil as String?, false)
        switch outcome {
        case .success: name = "success"
        case .neutral: name = "neutral"
        case .failure(let reason, let wait, let limited):
            name = "failure"
            cause = reason
            rateLimited = limited
            if let wait {
                // As BreakerState.record reads it: NaN is no wait, infinity the longest honoured.
                let bounded = wait.isNaN ? 0 : min(wait, policy.maxRetryAfter.seconds)
                retryAfter = bounded
                if bounded > 0 { retryReason = "\(reason); the server asked to wait \(SeekError.format(wait.rounded(.up)))s" }
            }
        }
        let (threshold, base, maximum) = (policy.failureThreshold, policy.baseBackoff.seconds, policy.maxBackoff.seconds)
        let (maxRetryAfter, window) = (policy.maxRetryAfter.seconds, policy.failureWindow.seconds)
        let now = clock?.now().timeIntervalSince1970
        let recorded: Void? = try? await database.run("record a call in a breaker") { [name, cause, retryAfter, retryReason, rateLimited] client in
            try await client.perform(
                """
                SELECT seek_breaker_record(\(key), \(name), \(probe), \(cause), \(retryAfter), \(retryReason), \(rateLimited),
                                           \(threshold), \(base), \(maximum), \(maxRetryAfter), \(window), \(now))
                """
            )
            return ()
        }
        if recorded == nil { await fallback.record(key, outcome: outcome, probe: probe, policy: policy) }
    }

    package func state(_ key: String) async -> BreakerState {
        // The rows found, none or one: `try?` would flatten an optional row into "no answer".
        let rows: [(Int, Double?, Double?, String?, Double?)]?
        rows = try? await database.run("read a breaker") { client in
            let rows = try await client.query(
                """
                SELECT consecutive_failures, extract(epoch FROM open_until)::double precision,
                       extract(epoch FROM probe_started_at)::double precision, reason,
                       extract(epoch FROM last_failure_at)::double precision
                FROM seek_breaker WHERE key = \(key)
                """)
            var found: [(Int, Double?, Double?, String?, Double?)] = []
            for try await row in rows.decode((Int, Double?, Double?, String?, Double?).self) { found.append(row) }
            return found
        }
        // No answer: the instance's own state; no row: a closed breaker (a success deletes the row).
        guard let rows else { return await fallback.state(key) }
        guard let (failures, openUntil, probe, reason, lastFailure) = rows.first else { return BreakerState() }
        return BreakerState(
            consecutiveFailures: failures, openUntil: openUntil.map(Date.init(timeIntervalSince1970:)),
            probeStartedAt: probe.map(Date.init(timeIntervalSince1970:)), reason: reason,
            lastFailureAt: lastFailure.map(Date.init(timeIntervalSince1970:)))
    }

    package func reset(provider id: String) async {
        await fallback.reset(provider: id)
        let prefix = id + "@"
        _ = try? await database.run("reset a breaker", timeout: SharedDatabase.writeTimeout) { client in
            try await client.perform("DELETE FROM seek_breaker WHERE key = \(id) OR starts_with(key, \(prefix))")
        }
    }
}

/// Rate-limit buckets in the shared database: one budget per provider host for every instance together,
/// timed by the database's clock (`seek_bucket_reserve`, SQL/bucket.sql). When the database cannot be
/// reached each instance spends its own share of the limit (the limit divided by the instances seen
/// lately) in memory.
package struct PostgresRateLimitStore: RateLimitStore {
    package let database: SharedDatabase
    package let fallback: any RateLimitStore
    /// The time of each call; nil (every instance of seek) the database's clock, as for breakers.
    package let clock: ResilienceClock?

    package init(database: SharedDatabase, fallback: any RateLimitStore = MemoryRateLimitStore(), clock: ResilienceClock? = nil) {
        self.database = database
        self.fallback = fallback
        self.clock = clock
    }

    package func reserve(_ key: String, limit: RateLimit, maxWait: Double) async -> TokenBucketState.Reservation {
        let (rate, burst) = (limit.ratePerSecond, limit.burst)
        let wait = maxWait.isFinite ? max(0, maxWait) : 86_400
        let now = clock?.now().timeIntervalSince1970
        let answer = try? await database.run("take a rate-limit token") { client in
            let rows = try await client.query(
                "SELECT out_granted, out_wait FROM seek_bucket_reserve(\(key), \(rate), \(burst), \(wait), \(now))")
            for try await row in rows.decode((Bool, Double).self) { return row }
            throw StoreError(operation: "take a rate-limit token", path: database.location, reason: "no answer row")
        }
        guard let (granted, delay) = answer else {
            return await fallback.reserve(key, limit: limit.share(among: database.liveInstances), maxWait: maxWait)
        }
        return granted ? .granted(wait: delay) : .refused(wait: delay)
    }
}
