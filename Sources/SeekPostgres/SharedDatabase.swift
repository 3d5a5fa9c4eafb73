import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SeekCore
import SeekStore

/// The PostgreSQL database several instances share (`SEEK_DATABASE_URL`): one connection pool, the
/// schema brought up to date under an advisory lock, and a guard that keeps a dead or hung database
/// from slowing anything down.
///
/// Every call goes through `run`: a short deadline, and a store breaker that one failure opens. While
/// it is open, calls fail at once (the stores fall back to the instance's own state) and a background
/// probe asks the database every second or so; the first answer closes it, so the instance returns to
/// the shared state by itself.
public final class SharedDatabase: Sendable {
    /// The URL with any password removed, for messages and `/healthz`.
    package let location: String
    /// This process's name among the instances (`seek_instance`).
    package let instanceID: String
    let client: PostgresClient
    private let runner: Task<Void, Never>
    private let state = NIOLockedValueBox(GuardState())

    /// How long a call that a search waits for may take by default: a breaker, a bucket, a cache or cursor read.
    package static let defaultCoordinationTimeout: Duration = .milliseconds(100)
    /// How long a call that a search waits for may take here.
    package let coordinationTimeout: Duration
    /// How long a write that must be kept (a favourite, history) may take before it is refused.
    package static let writeTimeout: Duration = .seconds(2)
    /// How long bringing the schema up to date may take (several instances may wait for one another).
    package static let migrationTimeout: Duration = .seconds(15)

    private struct GuardState {
        /// Whether the last call reached the database (nil: none made yet).
        var reachable: Bool?
        /// Whether the breaker is open: calls fail at once until the probe gets an answer.
        var open = false
        var openedAt: Date?
        var lastError: String?
        var probe: Task<Void, Never>?
        var migration: Task<Void, any Error>?
        var migrated = false
        var heartbeat: Task<Void, Never>?
        /// Instances seen lately (this one included), for the share of a limit to keep when alone.
        var liveInstances = 1
        var closed = false
    }

    /// Connects lazily to the database at `url` (`postgres://user[:password]@host[:port]/database`,
    /// `?host=/socket/dir`, `sslmode=`); a URL that does not parse is a configuration error.
    /// - Parameter coordinationTimeout: the deadline of what a search waits for (tests of the
    ///   semantics on a busy machine give more).
    package init(url: String, coordinationTimeout: Duration = SharedDatabase.defaultCoordinationTimeout, logger: Logger? = nil) throws {
        let parsed = try DatabaseURL(url)
        self.coordinationTimeout = coordinationTimeout
        location = parsed.redacted
        instanceID = UUID().uuidString.lowercased()
        var configuration = parsed.configuration
        configuration.options.connectTimeout = .seconds(2)
        configuration.options.maximumConnections = 16
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(15))
        let client = logger.map { PostgresClient(configuration: configuration, backgroundLogger: $0) }
            ?? PostgresClient(configuration: configuration)
        self.client = client
        runner = Task { await client.run() }
    }

    /// Whether the database answered the last call (nil before any).
    package var isReachable: Bool? { state.withLockedValue { $0.reachable } }

    /// Instances that said they were alive in the last 30 seconds (at least 1: this one).
    package var liveInstances: Int { state.withLockedValue { max(1, $0.liveInstances) } }

    /// Brings the schema up to date now and, for a long-lived host, says every 10 seconds that this
    /// instance is alive (so each knows its share of a limit when the database is gone).
    /// A database that cannot be reached is not an error: the probe connects once it answers.
    package func prepare(announce: Bool) async {
        _ = try? await run("prepare the schema", timeout: Self.migrationTimeout) { _ in () }
        guard announce else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let id = self.instanceID
                if let count = try? await self.run("announce this instance", timeout: .seconds(1), { client in
                    try await client.query("SELECT seek_heartbeat(\(id))").first(Int.self)
                }) {
                    self.state.withLockedValue { $0.liveInstances = max(1, count) }
                }
                try? await Task.sleep(for: .seconds(10))
            }
        }
        state.withLockedValue { state in
            state.heartbeat?.cancel()
            state.heartbeat = task
        }
    }

    /// Runs `body` against the database within `timeout`. Fails at once, with a `StoreError` naming
    /// `operation`, while the database is known to be unreachable.
    @discardableResult
    package func run<T: Sendable>(
        _ operation: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let timeout = timeout ?? coordinationTimeout
        if let refusal = state.withLockedValue({ $0.open || $0.closed ? ($0.lastError ?? "closed") : nil }) {
            throw unavailable(operation, refusal)
        }
        do {
            // The first call waits for the schema a little longer than its own deadline (a fresh
            // database is migrated once); a long-lived host has it done by `prepare` before serving.
            try await migrated(waiting: max(timeout, .seconds(1)))
            let client = self.client
            let result = try await Deadline.race(timeout) { try await body(client) }
            markReachable()
            return result
        } catch {
            if Self.isUnavailability(error) {
                let reason = Self.reason(error, timeout: timeout)
                trip(reason)
                throw unavailable(operation, reason)
            }
            throw StoreError(operation: operation, path: location, reason: Self.reason(error, timeout: timeout))
        }
    }

    /// Stops the probe and the heartbeat and closes every connection.
    package func close() async {
        let tasks = state.withLockedValue { state -> [Task<Void, Never>] in
            state.closed = true
            defer { state.probe = nil; state.heartbeat = nil }
            return [state.probe, state.heartbeat].compactMap { $0 }
        }
        for task in tasks { task.cancel() }
        runner.cancel()
        // A hung database can hold the pool's shutdown; the process does not wait for it long.
        let runner = self.runner
        try? await Deadline.race(.seconds(3)) { await runner.value }
    }

    // MARK: The schema

    /// Waits up to `waiting` for the schema to be up to date (migrating it the first time, within
    /// `migrationTimeout`, in a task of its own that later calls wait for too).
    private func migrated(waiting: Duration) async throws {
        let task = state.withLockedValue { state -> Task<Void, any Error>? in
            if state.migrated { return nil }
            if let running = state.migration { return running }
            let client = self.client
            let started = Task { [weak self] in
                do {
                    try await Deadline.race(Self.migrationTimeout) { try await Schema.migrate(client) }
                    self?.state.withLockedValue { state in
                        state.migrated = true
                        state.migration = nil
                    }
                } catch {
                    // The next call tries again.
                    self?.state.withLockedValue { $0.migration = nil }
                    throw error
                }
            }
            state.migration = started
            return started
        }
        guard let task else { return }
        try await Deadline.race(waiting) { try await task.value }
    }

    // MARK: The store breaker

    private func markReachable() {
        let changed = state.withLockedValue { state -> Bool in
            defer { state.reachable = true }
            return state.reachable != true
        }
        if changed { StoreMetrics.reachable(true) }
    }

    /// Opens the breaker after `reason` and starts the probe that closes it.
    private func trip(_ reason: String) {
        let start = state.withLockedValue { state -> Bool in
            state.reachable = false
            state.lastError = reason
            guard !state.open, !state.closed else { return false }
            state.open = true
            state.openedAt = Date()
            return true
        }
        StoreMetrics.reachable(false)
        guard start else { return }
        let probe = Task { [weak self] in
            guard let self else { return }
            await self.probeUntilAnswered()
        }
        state.withLockedValue { $0.probe = probe }
    }

    /// Asks the database `SELECT 1` with a growing pause (0.5 s to 5 s) until it answers and the schema
    /// is up to date, then closes the breaker. One question at a time: a hung database holds one.
    private func probeUntilAnswered() async {
        var pause = Duration.milliseconds(500)
        let client = self.client
        while !Task.isCancelled {
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(5))
            let question = Task {
                _ = try await client.query("SELECT 1").collect()
                try await Schema.migrate(client)
            }
            do {
                try await Deadline.race(.seconds(2)) { try await question.value }
            } catch {
                state.withLockedValue { $0.lastError = Self.reason(error, timeout: .seconds(2)) }
                // A hung database: wait for its answer before asking again.
                _ = await question.result
                continue
            }
            state.withLockedValue { state in
                state.open = false
                state.openedAt = nil
                state.probe = nil
                state.migrated = true
            }
            markReachable()
            return
        }
    }

    // MARK: Errors

    private func unavailable(_ operation: String, _ reason: String) -> StoreError {
        StoreError(operation: operation, path: location, reason: "the shared database is unreachable: \(reason)")
    }

    /// Whether `error` says the database cannot be used (down, hung, refusing connections), rather
    /// than that a statement failed.
    static func isUnavailability(_ error: any Error) -> Bool {
        if let seek = error as? SeekError, case .timeout = seek.kind { return true }
        guard let psql = error as? PSQLError else { return !(error is CancellationError) }
        guard psql.code == .server, let state = psql.serverInfo?[.sqlState] else { return true }
        // Connection exceptions, insufficient resources, operator intervention (shutdown), system errors.
        return ["08", "53", "57", "58"].contains(String(state.prefix(2)))
    }

    static func reason(_ error: any Error, timeout: Duration) -> String {
        if let seek = error as? SeekError, case .timeout = seek.kind {
            return "no answer within \(SeekError.format(timeout.seconds * 1000)) ms"
        }
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] {
                let code = psql.serverInfo?[.sqlState].map { " (\($0))" } ?? ""
                return message + code
            }
            if let underlying = psql.underlying { return "\(psql.code): \(underlying)" }
            return "\(psql.code)"
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: error)
    }
}

extension PostgresRowSequence {
    /// The first row, decoded, if any.
    func first<T: PostgresDecodable & Sendable>(_ type: T.Type) async throws -> T? {
        for try await value in decode(type) { return value }
        return nil
    }
}

extension PostgresClient {
    /// Runs a statement whose rows, if any, do not matter.
    func perform(_ query: PostgresQuery) async throws {
        _ = try await self.query(query).collect()
    }
}
