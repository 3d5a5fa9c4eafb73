import Foundation
import SeekCore
import SeekResilience
import SeekStore

// What every host does the same way before and after it calls the engine: bangs, provider selection,
// item ids, trending and suggest fan-outs, favourite snapshots, and which outcomes count. The CLI, the
// MCP server and the web server call these, so one request answers the same in each of them.

/// The providers a call goes to, and whether the caller chose them.
public struct ProviderSelection: Sendable, Hashable {
    /// Provider ids in the order given; nil means every registered provider.
    public var ids: [String]?
    /// True when the caller (a flag, a bang, an argument) or the configuration named the providers:
    /// an unconfigured provider's `skipped` then counts as a failure.
    public var explicit: Bool

    public init(ids: [String]?, explicit: Bool) {
        self.ids = ids
        self.explicit = explicit
    }
}

/// A query with its bangs (`!ol`, `!giphy`) taken out.
public struct BangQuery: Sendable, Hashable {
    public var text: String
    /// Providers named by bangs, or nil when there were none.
    public var providers: [String]?

    public static func parse(_ query: String, registry: ProviderRegistry) -> BangQuery {
        var text = ""
        var chosen: [String] = []
        for word in query.split(separator: " ").map(String.init) {
            if word.hasPrefix("!"), word.count > 1, let provider = registry.provider(forBang: String(word.dropFirst())) {
                if !chosen.contains(provider.descriptor.id) { chosen.append(provider.descriptor.id) }
            } else {
                if !text.isEmpty { text += " " }
                text += word
            }
        }
        return BangQuery(text: text, providers: chosen.isEmpty ? nil : chosen)
    }
}

/// How many of a call's providers answered: the CLI's exit code (0, 3, 4), MCP's `isError`.
public enum ProviderCoverage: Sendable, Hashable {
    case all, some, none

    /// The coverage of `outcomes` as given (see `counted(_:explicit:)` for which to give).
    public init(_ outcomes: [ProviderOutcome]) {
        if outcomes.allSatisfy(\.status.answered) {
            self = .all
        } else {
            self = outcomes.contains(where: \.status.answered) ? .some : .none
        }
    }

    /// The outcomes that count: when the caller did not choose providers, an unconfigured provider's
    /// `skipped` is information, not failure.
    public static func counted(_ outcomes: [ProviderOutcome], explicit: Bool) -> [ProviderOutcome] {
        let counted = explicit ? outcomes : outcomes.filter { $0.status != .skipped }
        return counted.isEmpty ? outcomes : counted
    }
}

extension SeekSession {
    /// How many results a call may ask of each provider.
    public static let resultLimits: ClosedRange<Int> = 1...100

    /// Provider ids a caller named (comma-separated), else SEEK_PROVIDERS / config `defaultProviders`,
    /// else every provider. An unknown id is an `.invalidInput` error that lists the known ones.
    public func selection(_ requested: String?) throws -> ProviderSelection {
        let raw = requested ?? settings.string("SEEK_PROVIDERS") ?? settings.file["defaultProviders"]?.arrayValue?
            .compactMap(\.stringValue).joined(separator: ",")
        guard let raw, !raw.isEmpty else { return ProviderSelection(ids: nil, explicit: false) }
        let ids = raw.split(separator: ",").map { $0.trimmed().lowercased() }
            .filter { !$0.isEmpty }
        for id in ids where registry.provider(id) == nil {
            throw SeekError(.invalidInput, detail: unknownProvider(id))
        }
        return ProviderSelection(ids: ids, explicit: true)
    }

    /// A search's text and providers: bangs in `query` choose providers (`!ol harbor`), else
    /// `selection(requested)`. An empty query is an `.invalidInput` error.
    public func searchScope(query: String, providers requested: String?) throws -> (text: String, selection: ProviderSelection) {
        let parsed = BangQuery.parse(query, registry: registry)
        guard !parsed.text.isEmpty else { throw SeekError(.invalidInput, detail: "the query is empty") }
        let selection = try parsed.providers.map { ProviderSelection(ids: $0, explicit: true) } ?? self.selection(requested)
        return (parsed.text, selection)
    }

    /// `text` as an item id of a registered provider; otherwise an `.invalidInput` error saying why.
    public func itemID(_ text: String) throws -> ItemID {
        guard let id = ItemID(parsing: text) else {
            throw SeekError(.invalidInput, detail: "'\(text)' is not a PROVIDER:ID item id")
        }
        guard registry.provider(id.provider) != nil else {
            throw SeekError(.invalidInput, detail: unknownProvider(id.provider))
        }
        return id
    }

    /// What is popular now at the selected providers, merged like a search (no query, no next page).
    /// Without an explicit selection only providers that have trending are asked.
    public func trending(_ selection: ProviderSelection, limit: Int, options: CallOptions) async throws -> SearchResult {
        var providers = try engine.select(selection.ids)
        if !selection.explicit { providers = providers.filter { $0.descriptor.capabilities.contains(.trending) } }
        let pipeline = engine.pipeline
        let batches = await engine.fanOut(providers, timeout: options.timeout) { provider in
            try await pipeline.trending(limit: limit, on: provider, options: options)
        }
        let weights = Dictionary(uniqueKeysWithValues: providers.map { ($0.descriptor.id, $0.descriptor.weight) })
        let merged = ResultMerger.merge(batches.map { ($0.outcome.provider, $0.items) }, weights: weights)
        return SearchResult(query: "", page: 1, results: merged, outcomes: batches.map(\.outcome), next: nil)
    }

    /// Suggestions for `prefix` from the selected providers, without repeats (ignoring case).
    /// Without an explicit selection only providers that suggest are asked.
    public func suggest(_ prefix: String, selection: ProviderSelection, limit: Int, options: CallOptions) async throws -> SuggestDocument {
        var providers = try engine.select(selection.ids)
        if !selection.explicit { providers = providers.filter { $0.descriptor.capabilities.contains(.suggest) } }
        let pipeline = engine.pipeline
        let answers = await engine.collect(providers, timeout: options.timeout) { provider in
            try await pipeline.suggest(prefix, limit: limit, on: provider, options: options)
        }
        var suggestions: [String] = []
        for answer in answers {
            for text in answer.value ?? [] where !suggestions.contains(where: { $0.lowercased() == text.lowercased() }) {
                suggestions.append(text)
            }
        }
        return SuggestDocument(prefix: prefix, suggestions: suggestions, outcomes: answers.map { $0.outcome { $0.count } })
    }

    /// The favourite stored for `id`: a snapshot of its provider's detail (title, creators, kind,
    /// medium image). Throws the provider's error, attributed to it.
    public func favoriteSnapshot(of id: ItemID, options: CallOptions) async throws -> Favorite {
        let detail: ItemDetail
        do {
            detail = try await engine.detail(id, options: options)
        } catch {
            throw SeekError.wrap(error, provider: id.provider)
        }
        let image = registry.provider(id.provider)?.imageURL(for: detail.item, size: .medium)
        var favorite = Favorite(snapshotOf: detail, imageURL: image, addedAt: Date())
        // The id the user gave is the one they will remove by, even if the provider resolved another.
        favorite.id = id
        return favorite
    }

    /// Every provider as `seek providers --format json` lists it, with its cool-down.
    public func providerDocuments() -> [ProviderDocument] {
        registry.providers.map { ProviderDocument($0, suspension: resilience.suspension(of: $0)) }
    }

    private func unknownProvider(_ id: String) -> String {
        "unknown provider '\(id)' (known: \(registry.ids.joined(separator: ", ")))"
    }
}
