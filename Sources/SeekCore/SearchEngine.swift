import Foundation
import NIOConcurrencyHelpers

/// What a search asks of the engine: everything one search may vary, as one value, so searches with
/// different options can run at once in one session.
public struct SearchOptions: Sendable {
    public var query: String
    /// Provider ids to ask, in order; nil asks every registered provider.
    public var providers: [String]?
    public var limit: Int
    /// 1-based page, asked of every provider directly; `cursor` (when set) wins.
    public var page: Int
    /// Continues a previous search: each provider's next token and what was already shown.
    public var cursor: SearchCursor?
    /// Overrides every provider's timeout (tuning, then descriptor default).
    public var timeout: Duration?
    /// How merged results are scored.
    public var ranking: RankingMethod
    /// A content rating for providers that filter by one; nil keeps their configured default.
    public var rating: String?
    /// Ask the providers even when a cached answer is fresh.
    public var noCache: Bool
    /// The host shows each result's sources, positions and score terms (the engine computes them anyway).
    public var explain: Bool
    /// An ISO 639-1 language the results should be in, for providers that filter by one.
    public var language: String?
    /// How records group into rows: a work's editions in one row (default), or each edition its own.
    public var grouping: ResultGrouping

    public init(query: String, providers: [String]? = nil, limit: Int = SearchBounds.defaultLimit, page: Int = 1,
                cursor: SearchCursor? = nil, timeout: Duration? = nil, ranking: RankingMethod = .searxng,
                rating: String? = nil, noCache: Bool = false, explain: Bool = false, language: String? = nil,
                grouping: ResultGrouping = .work) {
        self.query = query
        self.providers = providers
        self.limit = limit
        self.page = page
        self.cursor = cursor
        self.timeout = timeout
        self.ranking = ranking
        self.rating = rating
        self.noCache = noCache
        self.explain = explain
        self.language = language
        self.grouping = grouping
    }

    /// What each provider call of this search carries.
    public var call: CallOptions { CallOptions(rating: rating, noCache: noCache, timeout: timeout) }
}

/// The merged answer to a search.
public struct SearchResult: Sendable {
    public var query: String
    public var page: Int
    public var results: [MergedResult]
    public var outcomes: [ProviderOutcome]
    /// A cursor that continues every provider that has more; nil when all are exhausted.
    public var next: SearchCursor?
    /// How `results` were scored.
    public var ranking: RankingMethod
    /// How records were grouped into rows.
    public var grouping: ResultGrouping
    /// Whether the search asked to explain itself: documents then say how each source joined its row.
    public var explain: Bool

    public init(query: String, page: Int, results: [MergedResult], outcomes: [ProviderOutcome], next: SearchCursor?,
                ranking: RankingMethod = .searxng, grouping: ResultGrouping = .work, explain: Bool = false) {
        self.query = query
        self.page = page
        self.results = results
        self.outcomes = outcomes
        self.next = next
        self.ranking = ranking
        self.grouping = grouping
        self.explain = explain
    }

    /// True when every selected provider answered.
    public var allAnswered: Bool { outcomes.allSatisfy { $0.status.answered } }
    /// True when at least one provider answered.
    public var anyAnswered: Bool { outcomes.contains { $0.status.answered } }
}

/// One provider's answer as soon as it arrives, for streaming output.
public struct ProviderBatch: Sendable {
    public var outcome: ProviderOutcome
    public var items: [Item]

    public init(outcome: ProviderOutcome, items: [Item]) {
        self.outcome = outcome
        self.items = items
    }
}

/// Per-provider settings that override a descriptor's defaults (`providers.<id>.timeout|weight`).
public struct ProviderTuning: Sendable, Hashable {
    public var timeout: Duration?
    public var weight: Double?

    public init(timeout: Duration? = nil, weight: Double? = nil) {
        self.timeout = timeout
        self.weight = weight
    }
}


/// Fans a query out to providers concurrently, each under its own deadline, and merges the answers.
///
/// At a provider's deadline its task is cancelled (AsyncHTTPClient then closes the connection) and
/// the search goes on without waiting for it, so a provider that ignores cancellation cannot hold
/// the others back either.
public struct SearchEngine: Sendable {
    public let registry: ProviderRegistry
    /// Overrides of descriptor timeouts and weights, by provider id.
    public let tuning: [String: ProviderTuning]
    /// The middleware every provider call goes through (cache, resilience).
    public let pipeline: ProviderPipeline
    /// Which records are one book, and the rows they make (SeekIdentity's `ResultMerger`).
    public let merger: any ResultMerging

    public init(
        registry: ProviderRegistry, tuning: [String: ProviderTuning] = [:], pipeline: ProviderPipeline = ProviderPipeline(),
        merger: some ResultMerging
    ) {
        self.registry = registry
        self.tuning = tuning
        self.pipeline = pipeline
        self.merger = merger
    }

    /// The providers a search selects, in registry order; unknown ids are an `.invalidInput` error.
    public func select(_ ids: [String]?) throws -> [any SearchProvider] {
        guard let ids else { return registry.providers }
        var chosen: [any SearchProvider] = []
        for id in ids where !chosen.contains(where: { $0.descriptor.id == id }) {
            chosen.append(try registry.require(id))
        }
        return chosen
    }

    /// A provider's deadline: the override, else its tuning, else its descriptor's default.
    public func timeout(for provider: any SearchProvider, override: Duration? = nil) -> Duration {
        Self.timeout(for: provider, override: override, tuning: tuning)
    }

    /// The same rule without an engine, for middleware built before the engine they go into (the cache's staleness).
    public static func timeout(for provider: any SearchProvider, override: Duration?, tuning: [String: ProviderTuning]) -> Duration {
        override ?? tuning[provider.descriptor.id]?.timeout ?? provider.descriptor.defaultTimeout
    }

    /// A provider's ranking weight: its tuning, else its descriptor's.
    public func weight(for provider: any SearchProvider) -> Double {
        tuning[provider.descriptor.id]?.weight ?? provider.descriptor.weight
    }

    /// Merges batches from `providers` into one ranked list, with each provider's weight, grouped by `grouping`.
    public func merge(_ batches: [ProviderBatch], from providers: [any SearchProvider],
                      ranking: RankingMethod = .searxng, grouping: ResultGrouping = .work) -> [MergedResult] {
        let weights = Dictionary(providers.map { ($0.descriptor.id, weight(for: $0)) }) { first, _ in first }
        return merger.merge(batches.map { ($0.outcome.provider, $0.items) }, weights: weights, ranking: ranking, grouping: grouping)
    }

    /// Runs the search; `onBatch` sees each provider's answer as it arrives (already without items
    /// an earlier page of the cursor showed).
    public func search(
        _ options: SearchOptions, onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in }
    ) async throws -> SearchResult {
        var providers = try select(options.providers)
        let cursor = options.cursor
        if let cursor {
            providers = providers.filter { cursor.positions[$0.descriptor.id] != nil }
        }
        let page = cursor?.page ?? options.page
        // The limit each request carries (`SearchRequest` clamps it the same way).
        let limit = min(max(1, options.limit), SearchRequest.maxLimit)
        if let cursor {
            try cursor.validate(for: providers, limit: limit)
        } else if page > 1, SearchRequest.checkedOffset(page: page, limit: limit) == nil {
            throw SeekError(
                .invalidInput,
                detail: "page \(page) at \(limit) results a page starts past the first \(SearchRequest.maxOffset) results, as deep as seek pages")
        }
        let pipeline = self.pipeline
        let call = options.call
        let answers = await collect(providers, timeout: options.timeout) { provider in
            let request = SearchRequest(
                query: options.query, page: page, cursor: cursor?.positions[provider.descriptor.id],
                limit: options.limit, language: options.language)
            return try await pipeline.search(request, on: provider, options: call)
        } onAnswer: { answer in
            await onBatch(ProviderBatch(answer).excluding(cursor, by: merger))
        }
        let batches = answers.map { ProviderBatch($0).excluding(cursor, by: merger) }
        let outcomes = batches.map(\.outcome)
        let merged = merge(batches, from: providers, ranking: options.ranking, grouping: options.grouping)
        return SearchResult(
            query: options.query, page: page, results: merged, outcomes: outcomes,
            next: nextCursor(after: batches, page: page, previous: cursor), ranking: options.ranking,
            grouping: options.grouping, explain: options.explain)
    }

    /// The cursor for the page after this one: providers with a next token continue, a provider that
    /// failed for a passing reason while continuing keeps its place, the rest drop out; nil when none is left.
    func nextCursor(after batches: [ProviderBatch], page: Int, previous: SearchCursor?) -> SearchCursor? {
        var positions: [String: String] = [:]
        for batch in batches {
            let outcome = batch.outcome
            if let next = outcome.next {
                positions[outcome.provider] = next
            } else if !outcome.status.answered, outcome.status.isPassing,
                      let earlier = previous?.positions[outcome.provider] {
                positions[outcome.provider] = earlier
            }
        }
        guard !positions.isEmpty else { return nil }
        var next = SearchCursor(positions: positions, page: page + 1, seen: previous?.seen ?? [])
        next.remember(batches.lazy.flatMap(\.items), by: merger)
        return next
    }

    /// Calls `operation` on every provider at once. Unconfigured providers are `skipped` without a call.
    /// Returns the batches in the providers' order; `onBatch` sees each as it arrives.
    public func fanOut(
        _ providers: [any SearchProvider], timeout: Duration?,
        _ operation: @escaping @Sendable (any SearchProvider) async throws -> SearchPage,
        onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in }
    ) async -> [ProviderBatch] {
        let answers = await collect(providers, timeout: timeout, operation) { answer in
            await onBatch(ProviderBatch(answer))
        }
        return answers.map(ProviderBatch.init)
    }

    /// The detail record of `id` from its provider, through the middleware, under the provider's deadline.
    /// The record is checked to be the one asked for (`ItemDetail.verify`).
    public func detail(_ id: ItemID, options: CallOptions = CallOptions()) async throws -> ItemDetail {
        try await detailAnswer(id, options: options).result.get()
    }

    /// `detail(_:options:)` with how the call went (its typed error, its elapsed time), for hosts that
    /// report the provider's outcome. Throws only when no registered provider has `id`'s prefix.
    public func detailAnswer(_ id: ItemID, options: CallOptions = CallOptions()) async throws -> ProviderAnswer<ItemDetail> {
        let provider = try registry.require(id.provider)
        let pipeline = self.pipeline
        let limit = timeout(for: provider, override: options.timeout)
        // The call carries the deadline it runs under (a provider that makes several requests shares it out).
        var deadlined = options
        deadlined.timeout = limit
        let call = deadlined
        return await Self.call(provider, timeout: limit) { provider in
            try await pipeline.detail(id, on: provider, options: call)
        }
    }

    /// The generic fan-out: each provider's value or typed failure, with its elapsed time, in provider order.
    /// `timeout` overrides every provider's own (tuning, then descriptor default).
    ///
    /// Each call starts at once, on this thread, and sends its request before anything queued runs;
    /// it goes on below the caller's priority (`callPriority`). So under load, parsing and storing a
    /// burst of answers never holds up the calls of searches that arrive meanwhile. When it did, those
    /// calls went out together and their answers came back together: the queue never drained
    /// (issue 30: BENCHMARKS.md, eighth session).
    public func collect<Value: Sendable>(
        _ providers: [any SearchProvider], timeout: Duration?,
        _ operation: @escaping @Sendable (any SearchProvider) async throws -> Value,
        onAnswer: @escaping @Sendable (ProviderAnswer<Value>) async -> Void = { _ in }
    ) async -> [ProviderAnswer<Value>] {
        let priority = Self.callPriority(below: Task.currentPriority)
        return await withTaskGroup(of: (Int, ProviderAnswer<Value>).self) { group in
            for (index, provider) in providers.enumerated() {
                let limit = self.timeout(for: provider, override: timeout)
                let call: @Sendable () async -> (Int, ProviderAnswer<Value>) = {
                    (index, await Self.call(provider, timeout: limit, operation))
                }
                if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
                    group.addImmediateTask(priority: priority, operation: call)
                } else {
                    group.addTask(priority: priority, operation: call)
                }
            }
            var answers: [(Int, ProviderAnswer<Value>)] = []
            for await entry in group {
                await onAnswer(entry.1)
                answers.append(entry)
            }
            return answers.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The priority provider calls of a fan-out run at: `.low`, or the caller's when that is lower
    /// already. Below the caller's, what follows an answer waits for the work of accepting searches
    /// (on Linux, each priority has threads of its own), never the other way round.
    package static func callPriority(below caller: TaskPriority) -> TaskPriority {
        min(caller, .low)
    }

    static func call<Value: Sendable>(
        _ provider: any SearchProvider, timeout: Duration,
        _ operation: @escaping @Sendable (any SearchProvider) async throws -> Value
    ) async -> ProviderAnswer<Value> {
        let id = provider.descriptor.id
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let value = try await Deadline.race(timeout) { try await operation(provider) }
            return ProviderAnswer(provider: id, result: .success(value), elapsed: clock.now - start)
        } catch {
            let seek = SeekError.wrap(error, provider: id)
            return ProviderAnswer(provider: id, result: .failure(seek), elapsed: clock.now - start)
        }
    }
}

/// One provider's answer to a fan-out call: its value or its typed error, and how long it took.
public struct ProviderAnswer<Value: Sendable>: Sendable {
    public var provider: String
    public var result: Result<Value, SeekError>
    public var elapsed: Duration

    public var value: Value? { try? result.get() }

    /// The outcome, with `count` telling how many results the value holds.
    public func outcome(count: (Value) -> Int) -> ProviderOutcome {
        switch result {
        case .success(let value):
            let n = count(value)
            return ProviderOutcome(provider: provider, status: n == 0 ? .empty : .ok, count: n, elapsed: elapsed)
        case .failure(let error):
            return ProviderOutcome(provider: provider, status: ProviderStatus(error: error), elapsed: elapsed, error: error)
        }
    }
}

extension ProviderBatch {
    init(_ answer: ProviderAnswer<SearchPage>) {
        var outcome = answer.outcome { $0.items.count }
        outcome.next = answer.value?.next
        outcome.total = answer.value?.total
        if let failure = answer.value?.staleBecause {
            outcome.status = ProviderStatus(error: failure)
            outcome.error = failure
            outcome.stale = true
        }
        self.init(outcome: outcome, items: answer.value?.items ?? [])
    }

    /// This batch without the items an earlier page of `cursor` showed; `count` is what remains.
    func excluding(_ cursor: SearchCursor?, by merger: any ResultMerging) -> ProviderBatch {
        guard let cursor, !cursor.seen.isEmpty else { return self }
        var copy = self
        copy.items = items.filter { !cursor.hasSeen($0, by: merger) }
        copy.outcome.count = copy.items.count
        return copy
    }
}

extension ProviderStatus {
    /// Failures that may pass by the next page (a timeout, an error, a rate limit, a cool-down).
    var isPassing: Bool {
        switch self {
        case .timeout, .error, .rateLimited, .suspended: return true
        case .ok, .empty, .unauthorized, .skipped, .unsupported: return false
        }
    }
}
