import Foundation

/// Where one merged result came from: a provider, its item id there, and its 1-based rank in that list.
public struct ResultSource: Sendable, Hashable, Codable {
    public var provider: String
    public var id: ItemID
    public var rank: Int

    public init(provider: String, id: ItemID, rank: Int) {
        self.provider = provider
        self.id = id
        self.rank = rank
    }
}

/// One row of a merged search: the combined item, its score and every source that had it.
public struct MergedResult: Sendable, Hashable {
    public var item: Item
    public var score: Double
    public var sources: [ResultSource]
    /// Which provider supplied each merged field (`title`, `creators`, `year`, `image`, …).
    public var provenance: [String: String]

    public init(item: Item, score: Double, sources: [ResultSource], provenance: [String: String] = [:]) {
        self.item = item
        self.score = score
        self.sources = sources
        self.provenance = provenance
    }
}

/// What a search asks of the engine.
public struct SearchOptions: Sendable {
    public var query: String
    /// Provider ids to ask, in order; nil asks every registered provider.
    public var providers: [String]?
    public var limit: Int
    public var page: Int
    /// Per-provider continuation tokens from a previous search's cursor.
    public var cursor: SearchCursor?
    /// Overrides every provider's default timeout.
    public var timeout: Duration?

    public init(query: String, providers: [String]? = nil, limit: Int = 20, page: Int = 1,
                cursor: SearchCursor? = nil, timeout: Duration? = nil) {
        self.query = query
        self.providers = providers
        self.limit = limit
        self.page = page
        self.cursor = cursor
        self.timeout = timeout
    }
}

/// The merged answer to a search.
public struct SearchResult: Sendable {
    public var query: String
    public var page: Int
    public var results: [MergedResult]
    public var outcomes: [ProviderOutcome]
    /// A cursor that continues every provider that has more; nil when all are exhausted.
    public var next: SearchCursor?

    public init(query: String, page: Int, results: [MergedResult], outcomes: [ProviderOutcome], next: SearchCursor?) {
        self.query = query
        self.page = page
        self.results = results
        self.outcomes = outcomes
        self.next = next
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
}

/// Continues a search: each provider's own next token. Encoded as opaque base64url JSON.
public struct SearchCursor: Sendable, Hashable, Codable {
    /// Provider id → that provider's next token.
    public var positions: [String: String]
    /// The page number the cursor leads to.
    public var page: Int

    public init(positions: [String: String], page: Int) {
        self.positions = positions
        self.page = page
    }

    public var token: String {
        let data = (try? JSONEncoder().encode(self)) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes a token; an invalid one is an `.invalidInput` error.
    public init(token: String) throws {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
              let cursor = try? JSONDecoder().decode(SearchCursor.self, from: data)
        else { throw SeekError(.invalidInput, detail: "not a valid --cursor token") }
        self = cursor
    }
}

/// Fans a query out to providers concurrently, each under its own deadline, and merges the answers.
public struct SearchEngine: Sendable {
    public let registry: ProviderRegistry

    public init(registry: ProviderRegistry) {
        self.registry = registry
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

    /// Runs the search; `onBatch` sees each provider's answer as it arrives.
    public func search(
        _ options: SearchOptions, onBatch: @escaping @Sendable (ProviderBatch) async -> Void = { _ in }
    ) async throws -> SearchResult {
        var providers = try select(options.providers)
        if let cursor = options.cursor {
            providers = providers.filter { cursor.positions[$0.descriptor.id] != nil }
        }
        let page = options.cursor?.page ?? options.page
        let batches = await fanOut(providers, timeout: options.timeout) { provider in
            let request = SearchRequest(
                query: options.query, page: page, cursor: options.cursor?.positions[provider.descriptor.id],
                limit: options.limit)
            return try await provider.search(request)
        } onBatch: { batch in await onBatch(batch) }

        let outcomes = batches.map(\.outcome)
        let weights = Dictionary(uniqueKeysWithValues: providers.map { ($0.descriptor.id, $0.descriptor.weight) })
        let merged = ResultMerger.merge(batches.map { ($0.outcome.provider, $0.items) }, weights: weights)
        let positions = outcomes.reduce(into: [String: String]()) { result, outcome in
            if let next = outcome.next { result[outcome.provider] = next }
        }
        let next = positions.isEmpty ? nil : SearchCursor(positions: positions, page: page + 1)
        return SearchResult(query: options.query, page: page, results: merged, outcomes: outcomes, next: next)
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

    /// The generic fan-out: each provider's value or typed failure, with its elapsed time, in provider order.
    public func collect<Value: Sendable>(
        _ providers: [any SearchProvider], timeout: Duration?,
        _ operation: @escaping @Sendable (any SearchProvider) async throws -> Value,
        onAnswer: @escaping @Sendable (ProviderAnswer<Value>) async -> Void = { _ in }
    ) async -> [ProviderAnswer<Value>] {
        await withTaskGroup(of: (Int, ProviderAnswer<Value>).self) { group in
            for (index, provider) in providers.enumerated() {
                group.addTask {
                    (index, await Self.call(provider, timeout: timeout ?? provider.descriptor.defaultTimeout, operation))
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

    static func call<Value: Sendable>(
        _ provider: any SearchProvider, timeout: Duration,
        _ operation: @escaping @Sendable (any SearchProvider) async throws -> Value
    ) async -> ProviderAnswer<Value> {
        let id = provider.descriptor.id
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let value = try await withDeadline(timeout) { try await operation(provider) }
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
        self.init(outcome: outcome, items: answer.value?.items ?? [])
    }
}
