import Foundation
import SeekCore
import SeekImageCache
import SeekResilience
import SeekStore
import SeekKit

/// Which providers a call asked for, and whether the caller chose them (a bang, a flag, a parameter,
/// SEEK_PROVIDERS or the config's `defaultProviders`) or got every registered one.
public struct ProviderSelection: Sendable, Hashable {
    /// Provider ids in the order asked; nil means every registered provider.
    public var ids: [String]?
    public var explicit: Bool

    public init(ids: [String]?, explicit: Bool) {
        self.ids = ids
        self.explicit = explicit
    }
}

/// How a call went over all its providers: what the CLI's exit code and a server's error say.
public enum CallVerdict: Sendable, Hashable {
    /// Every counted provider answered (results may be empty).
    case allAnswered
    /// Some providers failed, others answered.
    case someFailed
    /// No provider answered.
    case noneAnswered

    /// The verdict over `outcomes`; when the caller did not choose providers, a provider skipped for
    /// want of a key is information, not failure.
    public init(_ outcomes: [ProviderOutcome], explicit: Bool) {
        let counted = Self.counted(outcomes, explicit: explicit)
        if counted.allSatisfy(\.status.answered) {
            self = .allAnswered
        } else {
            self = counted.contains(where: \.status.answered) ? .someFailed : .noneAnswered
        }
    }

    /// The outcomes that count towards the verdict.
    public static func counted(_ outcomes: [ProviderOutcome], explicit: Bool) -> [ProviderOutcome] {
        let counted = explicit ? outcomes : outcomes.filter { $0.status != .skipped }
        return counted.isEmpty ? outcomes : counted
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

/// Suggestions from several providers, and how each provider did.
public struct SuggestResult: Sendable {
    public var prefix: String
    /// Every provider's suggestions in provider order, each text once (case-insensitively).
    public var suggestions: [String]
    public var outcomes: [ProviderOutcome]
}

/// The operations every host offers, written once: the CLI, the server and the MCP server call these.
extension SeekSession {
    /// What is trending at the selected providers, merged; without a choice, only providers that
    /// offer trending are asked.
    func trending(_ selection: ProviderSelection, limit: Int, options: CallOptions) async throws -> SearchResult {
        var providers = try engine.select(selection.ids)
        if !selection.explicit { providers = providers.filter { $0.descriptor.capabilities.contains(.trending) } }
        let pipeline = engine.pipeline
        let batches = await engine.fanOut(providers, timeout: options.timeout) { provider in
            try await pipeline.trending(limit: limit, on: provider, options: options)
        }
        let merged = engine.merge(batches, from: providers)
        return SearchResult(query: "", page: 1, results: merged, outcomes: batches.map(\.outcome), next: nil)
    }

    /// Suggestions for `prefix` from the selected providers; without a choice, only providers that
    /// offer suggestions are asked.
    func suggest(_ prefix: String, _ selection: ProviderSelection, limit: Int, options: CallOptions) async throws -> SuggestResult {
        var providers = try engine.select(selection.ids)
        if !selection.explicit { providers = providers.filter { $0.descriptor.capabilities.contains(.suggest) } }
        let pipeline = engine.pipeline
        let answers = await engine.collect(providers, timeout: options.timeout) { provider in
            try await pipeline.suggest(prefix, limit: limit, on: provider, options: options)
        }
        var suggestions: [String] = []
        var seen = Set<String>()
        for answer in answers {
            for text in answer.value ?? [] where seen.insert(text.lowercased()).inserted {
                suggestions.append(text)
            }
        }
        return SuggestResult(prefix: prefix, suggestions: suggestions, outcomes: answers.map { $0.outcome { $0.count } })
    }
}

extension SeekSession {
    /// The snapshot a favourite keeps of `id`: its detail's title, creators and medium image, under
    /// the id the caller gave (the one they will remove it by, even if the provider resolved another).
    public func favoriteSnapshot(of id: ItemID, options: CallOptions = CallOptions()) async throws -> Favorite {
        let detail = try await engine.detail(id, options: options)
        let image = registry.provider(id.provider)?.imageURL(for: detail.item, size: .medium)
        var favorite = Favorite(snapshotOf: detail, imageURL: image, addedAt: Date())
        favorite.id = id
        return favorite
    }

    /// The image of item `id` at `size`, through the shared image cache: the provider's own URL for
    /// it, from its detail record (never a URL from the caller). An item without one, or whose bytes
    /// cannot be had (a demo's recordings hold none), gets the cover Seek draws (`GeneratedCover`,
    /// origin `.generated`) from its record, or from what a recent answer said of it when even the
    /// record cannot be had.
    public func image(of id: ItemID, size: ImageSize, options: CallOptions = CallOptions()) async throws -> CachedImage {
        try await itemImage(of: id, size: size, options: options).image  // ItemImage.swift: also says why a cover was drawn
    }

    /// Every provider as `seek providers --format json` lists it, with its cool-down.
    public func providerDocuments() async -> [ProviderDocument] {
        var documents: [ProviderDocument] = []
        // In demo mode an endpoint names the demo server as `demo:`, never its loopback address.
        let demoServer = settings.string(DemoMode.serverVariable)
        for provider in registry.providers {
            var document = ProviderDocument(
                provider, tuning: engine.tuning[provider.descriptor.id], suspension: await resilience.suspension(of: provider))
            if let demoServer { document.endpoint = document.endpoint.replacingOccurrences(of: demoServer, with: "demo:") }
            documents.append(document)
        }
        return documents
    }

    /// When each cooling-down provider of `ids` comes back.
    public func suspensions(of ids: [String]) async -> [String: Date] {
        var found: [String: Date] = [:]
        for id in ids {
            if let provider = registry.provider(id), let suspension = await resilience.suspension(of: provider) {
                found[id] = suspension.until
            }
        }
        return found
    }

    /// `seek stats --format json`: registered providers first, in their order, then any recorded
    /// provider no longer registered.
    public func statsDocument() async -> StatsEnvelope {
        let records = resilience.stats.records()
        let ids = registry.ids + records.keys.filter { !registry.ids.contains($0) }.sorted()
        var documents: [StatsDocument] = []
        for id in ids {
            let suspension = if let provider = registry.provider(id) { await resilience.suspension(of: provider) } else { nil as (until: Date, reason: String?)? }
            documents.append(StatsDocument(summary: ProviderStatsSummary(provider: id, records: records[id] ?? []), suspension: suspension))
        }
        return StatsEnvelope(window: resilience.stats.window, providers: documents)
    }
}
