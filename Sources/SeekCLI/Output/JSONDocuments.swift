import Foundation
import SeekCore

/// DESIGN's JSON shapes. Optional fields are written as `null`, never left out.
struct ItemDocument: Encodable {
    let result: MergedResult
    let detail: ItemDetail?

    init(_ result: MergedResult, detail: ItemDetail? = nil) {
        self.result = result
        self.detail = detail
    }

    enum Key: String, CodingKey {
        case id, provider, kind, title, subtitle, creators, year, isbn13, isbn10, imageURL, images, url, score, sources
        case provenance, description, contributors, subjects, publishers, publishDate, pageCount, attributes
        case identifiers
    }

    func encode(to encoder: any Encoder) throws {
        let item = result.item
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(item.id.description, forKey: .id)
        try container.encode(item.provider, forKey: .provider)
        try container.encode(item.kind.rawValue, forKey: .kind)
        try container.encode(item.title, forKey: .title)
        try container.encode(item.subtitle, forKey: .subtitle)
        try container.encode(item.creators, forKey: .creators)
        try container.encode(item.year, forKey: .year)
        try container.encode(item.identifiers.isbn13, forKey: .isbn13)
        try container.encode(item.image(.large)?.url.absoluteString, forKey: .imageURL)
        try container.encode(item.url?.absoluteString, forKey: .url)
        try container.encode(result.score, forKey: .score)
        try container.encode(result.sources.map(SourceDocument.init), forKey: .sources)
        try container.encode(result.provenance, forKey: .provenance)
        guard let detail else { return }
        try container.encode(item.identifiers.isbn10, forKey: .isbn10)
        try container.encode(item.identifiers.other, forKey: .identifiers)
        let images = Dictionary(uniqueKeysWithValues: item.images.map { ($0.key.rawValue, ImageDocument(reference: $0.value)) })
        try container.encode(images, forKey: .images)
        try container.encode(detail.description, forKey: .description)
        try container.encode(detail.contributors.map { ContributorDocument(contributor: $0) }, forKey: .contributors)
        try container.encode(detail.subjects, forKey: .subjects)
        try container.encode(detail.publishers, forKey: .publishers)
        try container.encode(detail.publishDate, forKey: .publishDate)
        try container.encode(detail.pageCount, forKey: .pageCount)
        try container.encode(detail.attributes, forKey: .attributes)
    }
}

struct SourceDocument: Encodable {
    let provider: String
    let id: String
    let rank: Int

    init(_ source: ResultSource) {
        provider = source.provider
        id = source.id.description
        rank = source.rank
    }
}

struct ImageDocument: Encodable {
    let reference: ImageReference
    enum Key: String, CodingKey { case url, width, height }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(reference.url.absoluteString, forKey: .url)
        try container.encode(reference.width, forKey: .width)
        try container.encode(reference.height, forKey: .height)
    }
}

struct ContributorDocument: Encodable {
    let contributor: Contributor
    enum Key: String, CodingKey { case name, role }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(contributor.name, forKey: .name)
        try container.encode(contributor.role, forKey: .role)
    }
}

struct OutcomeDocument: Encodable {
    let outcome: ProviderOutcome
    enum Key: String, CodingKey { case id, status, count, elapsedMs, error, stale }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(outcome.provider, forKey: .id)
        try container.encode(outcome.status.rawValue, forKey: .status)
        try container.encode(outcome.count, forKey: .count)
        try container.encode(outcome.elapsedMilliseconds, forKey: .elapsedMs)
        try container.encode(outcome.error?.cause, forKey: .error)
        try container.encode(outcome.stale, forKey: .stale)
    }
}

/// `seek search --format json` (and `trending`, which leaves out `query`); with `type` set, the
/// summary line that ends an ndjson stream.
struct SearchDocument: Encodable {
    let query: String?
    let page: Int
    let results: [MergedResult]
    let outcomes: [ProviderOutcome]
    let next: String?
    var type: String? = nil

    enum Key: String, CodingKey { case type, query, page, items, providers, next }

    /// The same document as an ndjson `summary` line.
    var summary: SearchDocument {
        var copy = self
        copy.type = "summary"
        return copy
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        if let type { try container.encode(type, forKey: .type) }
        if let query { try container.encode(query, forKey: .query) }
        try container.encode(page, forKey: .page)
        try container.encode(results.map { ItemDocument($0) }, forKey: .items)
        try container.encode(outcomes.map(OutcomeDocument.init), forKey: .providers)
        try container.encode(next, forKey: .next)
    }
}

/// An ndjson `batch` line: one provider's answer as it arrived, before merging. Each item is scored
/// as if it were found by that provider alone.
struct BatchDocument: Encodable {
    let batch: ProviderBatch
    let weight: Double
    let ranking: RankingMethod

    enum Key: String, CodingKey { case type, provider, status, count, elapsedMs, error, stale, items }

    func encode(to encoder: any Encoder) throws {
        let outcome = batch.outcome
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("batch", forKey: .type)
        try container.encode(outcome.provider, forKey: .provider)
        try container.encode(outcome.status.rawValue, forKey: .status)
        try container.encode(outcome.count, forKey: .count)
        try container.encode(outcome.elapsedMilliseconds, forKey: .elapsedMs)
        try container.encode(outcome.error?.cause, forKey: .error)
        try container.encode(outcome.stale, forKey: .stale)
        let items = batch.items.enumerated().map { index, item in
            let source = ResultSource(provider: outcome.provider, id: item.id, rank: index + 1, weight: weight)
            return ItemDocument(MergedResult(item: item, score: ranking.score([source]), sources: [source]))
        }
        try container.encode(items, forKey: .items)
    }
}

enum JSONText {
    /// Pretty JSON with stable key order and unescaped slashes.
    static func pretty(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// One-line JSON, for ndjson.
    static func compact(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
