import Foundation
import SeekCore
import SeekHTTP
import SeekJSON
import SeekResilience
import SeekSession

/// DESIGN's JSON shapes. Optional fields are written as `null`, never left out.
struct ItemDocument: JSONWritable {
    let result: MergedResult
    let detail: ItemDetail?

    init(_ result: MergedResult, detail: ItemDetail? = nil) {
        self.result = result
        self.detail = detail
    }

    func write(to writer: inout JSONWriter) {
        let item = result.item
        writer.object { writer in
            writer.field("id", item.id.description)
            writer.field("provider", item.provider)
            writer.field("kind", item.kind.rawValue)
            writer.field("title", item.title)
            writer.field("subtitle", item.subtitle)
            writer.field("creators", item.creators)
            writer.field("year", item.year)
            writer.field("isbn13", item.identifiers.isbn13)
            writer.field("imageURL", item.image(.large)?.url.absoluteString)
            writer.field("url", item.url?.absoluteString)
            writer.field("score", result.score)
            writer.field("sources", result.sources.map(SourceDocument.init))
            writer.field("provenance", result.provenance)
            guard let detail else { return }
            writer.field("isbn10", item.identifiers.isbn10)
            writer.field("identifiers", item.identifiers.other)
            let images = Dictionary(uniqueKeysWithValues: item.images.map { ($0.key.rawValue, ImageDocument(reference: $0.value)) })
            writer.field("images", images)
            writer.field("description", detail.description)
            writer.field("contributors", detail.contributors.map(ContributorDocument.init))
            writer.field("subjects", detail.subjects)
            writer.field("publishers", detail.publishers)
            writer.field("publishDate", detail.publishDate)
            writer.field("pageCount", detail.pageCount)
            writer.field("attributes", detail.attributes)
        }
    }
}

struct SourceDocument: JSONWritable {
    let source: ResultSource

    init(_ source: ResultSource) { self.source = source }

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("provider", source.provider)
            writer.field("id", source.id.description)
            writer.field("rank", source.rank)
        }
    }
}

struct ImageDocument: JSONWritable {
    let reference: ImageReference

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("url", reference.url.absoluteString)
            writer.field("width", reference.width)
            writer.field("height", reference.height)
        }
    }
}

struct ContributorDocument: JSONWritable {
    let contributor: Contributor

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("name", contributor.name)
            writer.field("role", contributor.role)
        }
    }
}

struct OutcomeDocument: JSONWritable {
    let outcome: ProviderOutcome

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", outcome.provider)
            Self.writeResult(of: outcome, to: &writer)
        }
    }

    /// The members every document that reports an outcome shares, after the provider's id.
    static func writeResult(of outcome: ProviderOutcome, to writer: inout JSONWriter) {
        writer.field("status", outcome.status.rawValue)
        writer.field("count", outcome.count)
        writer.field("elapsedMs", outcome.elapsedMilliseconds)
        writer.field("error", outcome.error?.cause)
        writer.field("stale", outcome.stale)
    }
}

/// `seek search --format json` (and `trending`, which leaves out `query`); with `type` set, the
/// summary line that ends an ndjson stream.
struct SearchDocument: JSONWritable {
    let query: String?
    let page: Int
    let results: [MergedResult]
    let outcomes: [ProviderOutcome]
    let next: String?
    var type: String? = nil

    /// The same document as an ndjson `summary` line.
    var summary: SearchDocument {
        var copy = self
        copy.type = "summary"
        return copy
    }

    func write(to writer: inout JSONWriter) {
        writer.object { writer in
            if let type { writer.field("type", type) }
            if let query { writer.field("query", query) }
            writer.field("page", page)
            writer.field("items", results.map { ItemDocument($0) })
            writer.field("providers", outcomes.map(OutcomeDocument.init))
            writer.field("next", next)
        }
    }
}

/// An ndjson `batch` line: one provider's answer as it arrived, before merging. Each item is scored
/// as if it were found by that provider alone.
struct BatchDocument: JSONWritable {
    let batch: ProviderBatch
    let weight: Double
    let ranking: RankingMethod

    func write(to writer: inout JSONWriter) {
        let outcome = batch.outcome
        let items = batch.items.enumerated().map { index, item in
            let source = ResultSource(provider: outcome.provider, id: item.id, rank: index + 1, weight: weight)
            return ItemDocument(MergedResult(item: item, score: ranking.score([source]), sources: [source]))
        }
        writer.object { writer in
            writer.field("type", "batch")
            writer.field("provider", outcome.provider)
            OutcomeDocument.writeResult(of: outcome, to: &writer)
            writer.field("items", items)
        }
    }
}

/// How commands print JSON: written by hand (`JSONWritable`), keys in the order each document gives.
enum JSONText {
    /// Pretty JSON (two-space indents) with unescaped slashes.
    static func pretty(_ value: some JSONWritable) -> String {
        JSONWriter.text(value, style: .pretty)
    }

    /// One-line JSON, for ndjson.
    static func compact(_ value: some JSONWritable) -> String {
        JSONWriter.text(value, style: .compact)
    }
}
