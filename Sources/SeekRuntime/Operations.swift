import Foundation
import SeekCore
import SeekIdentity
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
    /// Whether every provider that counts answered, some did or none did.
    public var verdict: CallVerdict
    /// The outcomes that count towards `verdict`.
    public var counted: [ProviderOutcome]

    init(prefix: String, suggestions: [String], outcomes: [ProviderOutcome], explicit: Bool) {
        self.prefix = prefix
        self.suggestions = suggestions
        self.outcomes = outcomes
        verdict = CallVerdict(outcomes, explicit: explicit)
        counted = CallVerdict.counted(outcomes, explicit: explicit)
    }
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
        return SuggestResult(
            prefix: prefix, suggestions: suggestions, outcomes: answers.map { $0.outcome { $0.count } }, explicit: selection.explicit)
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

/// What hosts show of the registered providers and of a search's cursor, so that none of them asks
/// the registry, the engine or the stores.
extension SeekSession {
    /// The registered providers' ids, in registry order.
    public var providerIDs: [String] { registry.ids }

    /// What provider `id` declares (its name, kinds, capabilities); nil for one not registered.
    public func descriptor(of id: String) -> ProviderDescriptor? {
        registry.provider(id)?.descriptor
    }

    /// Each registered provider's weight in the ranking, by id: what a streamed batch carries.
    public var providerWeights: [String: Double] {
        Dictionary(registry.providers.map { ($0.descriptor.id, engine.weight(for: $0)) }) { first, _ in first }
    }

    /// The short token a server hands out for `cursor`, kept where every instance reads it; nil for none.
    public func token(for cursor: SearchCursor?) async -> String? {
        guard let cursor else { return nil }
        return await userState.cursors.token(for: cursor)
    }

    /// The short token the CLI prints for `cursor`, kept in the local store for a later process; nil for none.
    public func lastingToken(for cursor: SearchCursor?) async -> String? {
        guard let cursor else { return nil }
        return await userState.cursors.lastingToken(for: cursor)
    }

    /// Takes one search from `client`'s budget on a public server (`limit` for each client): nil when
    /// it may search now, else the seconds until it may. A fleet on one database shares the budgets.
    public func reserveClientSearch(_ client: String, limit: RateLimit) async -> Double? {
        guard case .refused(let wait) = await resilience.clientBuckets.reserve("client:" + client, limit: limit, maxWait: 0) else {
            return nil
        }
        return wait
    }

    /// Clears the cool-down of provider `name` (any case), or of every provider for `all` (unless a
    /// provider is called that), and returns the ids cleared; an unknown name is `unknown_provider`.
    public func resetCoolDown(_ name: String) async throws(RequestError) -> [String] {
        let name = name.trimmed().lowercased()
        let ids = name == "all" && registry.provider(name) == nil ? registry.ids : [name]
        if let unknown = ids.first(where: { registry.provider($0) == nil }) { throw unknownProvider(unknown) }
        for id in ids { await resilience.reset(id) }
        return ids
    }

    /// Copies the favourites and history of the embedded database at `path` (default: the one under
    /// SEEK_DATA_DIR) into the shared database (`seek db import-sqlite`).
    public func importEmbedded(from path: String?) async throws -> ImportReport {
        try await userState.importEmbedded(from: path, settings: settings)
    }
}

/// A search as a results page shows it (the web UI's `/search`): the checked request, and either
/// the answer with what the page shows beside it, or, for a page whose results arrive streamed, the
/// providers it waits for.
public struct ResultsPage: Sendable {
    public var checked: CheckedSearch
    /// The answer; nil when the page streams its results (`pending` names the providers then).
    public var answer: SearchAnswer?
    /// The providers a streamed page waits for, in order; empty when `answer` is there.
    public var pending: [String]
    /// The next page's short token (`token(for:)`).
    public var next: String?
    /// When each resting provider of the answer comes back.
    public var suspensions: [String: Date]
    /// The ids of the owner's favourites (none when they cannot be read).
    public var favorites: Set<ItemID>
}

/// A trending list as a page shows it: the answer, when resting providers come back, the owner's favourites.
public struct TrendingPage: Sendable {
    public var answer: SearchAnswer
    public var suspensions: [String: Date]
    public var favorites: Set<ItemID>
}

/// An item's records from several sources merged, as the detail page shows it.
public struct MergedDetail: Sendable {
    public var id: ItemID
    /// The records merged, each field from the source `provenance` names.
    public var detail: ItemDetail
    /// Which provider each merged field came from.
    public var provenance: [String: String]
    /// Each source's own record: the item's first, then the others that answered, in the order asked.
    public var sources: [(provider: String, detail: ItemDetail)]
    /// The other sources that failed, and why (never fatal).
    public var failures: [(id: ItemID, error: SeekError)]
    /// The key that joined each other source's record to the first's (`ResultSource.joinedBy`), in
    /// row order; none when the records no longer join.
    public var joins: [(provider: String, joinedBy: String)]
    /// Whether the owner keeps the item among their favourites.
    public var favorite: Bool
}

extension SeekSession {
    /// The owner's favourites' ids; none for nil, or when they cannot be read (a page still shows).
    func favoriteIDs(of owner: StateOwner?) async -> Set<ItemID> {
        Set(((try? await favorites(of: owner)) ?? []).map(\.id))
    }

    /// A results page's search in one call: `request` checked, the owner's favourites read, and,
    /// unless the page streams (`streaming`, and the request does not continue from a cursor), the
    /// search run and recorded, with the next page's token and when resting providers come back.
    public func resultsPage(_ request: SearchQuery, streaming: Bool) async throws -> ResultsPage {
        let checked = try await check(request)
        let favorites = await favoriteIDs(of: request.owner)
        if streaming, checked.options.cursor == nil {
            let pending = checked.options.providers
                ?? registry.providers.filter { $0.descriptor.capabilities.contains(.search) }.map(\.descriptor.id)
            return ResultsPage(checked: checked, answer: nil, pending: pending, next: nil, suspensions: [:], favorites: favorites)
        }
        let answer = try await search(checked)
        let next = await token(for: answer.result.next)
        let suspensions = await suspensions(of: answer.result.outcomes.filter { $0.status == .suspended }.map(\.provider))
        return ResultsPage(checked: checked, answer: answer, pending: [], next: next, suspensions: suspensions, favorites: favorites)
    }

    /// A trending page in one call: the list, when resting providers come back, `owner`'s favourites.
    public func trendingPage(_ request: FanOutQuery, owner: StateOwner?) async throws -> TrendingPage {
        let answer = try await trending(request)
        let favorites = await favoriteIDs(of: owner)
        let suspensions = await suspensions(of: answer.result.outcomes.filter { $0.status == .suspended }.map(\.provider))
        return TrendingPage(answer: answer, suspensions: suspensions, favorites: favorites)
    }

    /// The item `request` names, merged with the records of the other sources `also` lists
    /// (comma-separated ids, at most 8 read; the item itself and unregistered providers left out),
    /// one after another: the item's own failure is thrown, another source's is in `failures`.
    /// `grouping` is how the records are joined for `joins`.
    public func mergedDetail(
        _ request: ItemQuery, also: String?, grouping: ResultGrouping, owner: StateOwner?
    ) async throws -> MergedDetail {
        let (id, options) = try checked(request)
        let others = (also ?? "").fields(separatedBy: ",").prefix(8)
            .compactMap { ItemID(parsing: String($0)) }
            .filter { $0 != id && registry.provider($0.provider) != nil }
        let first = try await engine.detail(id, options: options)
        var sources: [(provider: String, detail: ItemDetail)] = [(id.provider, first)]
        var failures: [(id: ItemID, error: SeekError)] = []
        for other in others {
            do {
                sources.append((other.provider, try await engine.detail(other, options: options)))
            } catch {
                failures.append((other, SeekError.wrap(error, provider: other.provider)))
            }
        }
        let merged = ResultMerger.mergeDetails(sources) ?? (detail: first, provenance: [:])
        var favorite = false
        if let owner { favorite = (try? await userState.favorites(of: owner).favorite(id)) != nil }
        return MergedDetail(
            id: id, detail: merged.detail, provenance: merged.provenance, sources: sources, failures: failures,
            joins: Self.joins(sources, grouping: grouping), favorite: favorite)
    }

    /// What joined each source's record to the first's when `details` are merged as a search's
    /// answers are (`ResultSource.joinedBy`, in row order); none for one record, or records that do not join.
    public static func joins(
        _ details: [(provider: String, detail: ItemDetail)], grouping: ResultGrouping
    ) -> [(provider: String, joinedBy: String)] {
        guard details.count > 1 else { return [] }
        let lists = details.map { (provider: $0.provider, items: [$0.detail.item]) }
        guard let row = ResultMerger.merge(lists, grouping: grouping).first(where: { $0.sources.count > 1 }) else { return [] }
        return row.sources.compactMap { source in source.joinedBy.map { (source.provider, $0) } }
    }
}

/// One image a caller asks for (`seek image`): an item's (its URL comes from its provider's detail)
/// or an image URL of a registered provider. Made by `SeekSession.imageTarget(_:)`.
public struct ImageTarget: Sendable {
    public enum Kind: Sendable {
        case item(ItemID)
        case url(URL)
    }

    /// What the caller wrote.
    public let text: String
    public let kind: Kind
    /// The provider the image belongs to, for errors and the cache.
    public let provider: String

    /// `text` as an absolute http(s) URL with a host, or nil.
    public static func looksLikeURL(_ text: String) -> URL? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
              let url = URL(string: text), url.host?.isEmpty == false
        else { return nil }
        return url
    }
}

extension SeekSession {
    /// `text` as an image to fetch: an http(s) URL must belong to a registered provider (by host,
    /// `ImageURLOwner`), an item id must be `PROVIDER:ID` of one; otherwise an `invalid_parameter`,
    /// `unknown_provider` or `invalid_id` error in words naming the value.
    public func imageTarget(_ text: String) throws(RequestError) -> ImageTarget {
        if let url = ImageTarget.looksLikeURL(text) {
            guard let owner = ImageURLOwner.provider(for: url, in: registry) else {
                throw RequestError(
                    .invalidParameter,
                    "\(Redaction.redact(url: url)) is not an image URL of a configured provider (\(registry.ids.joined(separator: ", ")))")
            }
            return ImageTarget(text: text, kind: .url(url), provider: owner)
        }
        guard ItemID(parsing: text) != nil else {
            throw RequestError(.invalidID, "'\(text.prefix(100))' is neither a PROVIDER:ID item id nor an http(s) image URL")
        }
        let id = try itemID(text)
        return ImageTarget(text: text, kind: .item(id), provider: id.provider)
    }

    /// The image `target` names at `size`, through the shared image cache: a URL's bytes as they
    /// are, an item's as `itemImage(of:size:options:)` has them (its drawn cover saying why).
    public func image(of target: ImageTarget, size: ImageSize, options: CallOptions = CallOptions()) async throws -> ItemImage {
        switch target.kind {
        case .url(let url): ItemImage(image: try await imageStore.image(at: url, provider: target.provider))
        case .item(let id): try await itemImage(of: id, size: size, options: options)
        }
    }
}

/// Which registered provider an image URL belongs to: the same host (and port) as a provider's
/// endpoint, or a host under the same site (`covers.openlibrary.org` for `openlibrary.org`,
/// `media2.giphy.com` for `api.giphy.com`, `image.aladin.co.kr` for `www.aladin.co.kr`).
enum ImageURLOwner {
    static func provider(for url: URL, in registry: ProviderRegistry) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        var best: (id: String, score: Int)?
        for provider in registry.providers {
            guard let endpoint = URL(string: provider.endpoint), let base = endpoint.host?.lowercased() else { continue }
            var score = 0
            if host == base, url.port == endpoint.port {
                // The same server: prefer the provider whose endpoint path the URL is under.
                score = endpoint.path.count > 1 && url.path.hasPrefix(endpoint.path) ? 3 : 2
            } else if let site = site(of: base), host == site || host.hasSuffix("." + site) {
                score = 1
            }
            if score > (best?.score ?? 0) { best = (provider.descriptor.id, score) }
        }
        return best?.id
    }

    /// The registrable part of a DNS host (`api.giphy.com` → `giphy.com`, `www.aladin.co.kr` →
    /// `aladin.co.kr`); nil for IP addresses and single-label hosts, which must match exactly.
    static func site(of host: String) -> String? {
        let labels = host.split(separator: ".").map(String.init)
        guard labels.count >= 2, !labels.allSatisfy({ $0.allSatisfy(\.isNumber) }), !host.contains(":") else { return nil }
        let secondLevel: Set<String> = ["co", "com", "net", "org", "ac", "go", "or", "ne", "gov", "edu"]
        let suffixLength = labels.count >= 3 && labels[labels.count - 1].count == 2 && secondLevel.contains(labels[labels.count - 2]) ? 3 : 2
        guard labels.count >= suffixLength else { return nil }
        return labels.suffix(suffixLength).joined(separator: ".")
    }
}

/// The shared image cache as `seek cache` and `seek image` use it.
extension SeekSession {
    /// Opens the image cache (built on first use), so that a host fails before its work when it cannot be.
    public func openImageCache() throws {
        _ = try imageStore
    }

    /// Entries, bytes, limits, hits and misses per tier (`seek cache stats`).
    public func imageCacheStatistics() throws -> ImageCacheStatistics {
        try imageStore.statistics()
    }

    /// Removes every cached image; what was removed, and the folder the cache keeps on disk (if any).
    public func clearImageCache() throws -> (report: PruneReport, directory: String?) {
        let cache = try imageStore
        let report = try cache.removeAll()
        return (report, cache.statistics().directory)
    }

    /// Removes expired and damaged images and leftovers, then trims to the size limit.
    public func pruneImageCache() throws -> PruneReport {
        try imageStore.prune()
    }

    /// Writes the image cache's hit and miss counts out (after a run of fetches); nothing when it cannot be opened.
    public func flushImageStatistics() {
        (try? imageStore)?.flushStatistics()
    }
}
