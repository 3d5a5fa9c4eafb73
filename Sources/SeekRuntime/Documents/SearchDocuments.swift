import Foundation
import SeekCore
import SeekKit

/// DESIGN's JSON shapes. Optional fields are written as `null`, never left out.
public struct ItemDocument: JSONWritable {
    public let result: MergedResult
    public let detail: ItemDetail?
    /// Each source after a row's first says which key joined it (`joinedBy`).
    public var explain = false

    public init(_ result: MergedResult, detail: ItemDetail? = nil, explain: Bool = false) {
        self.result = result
        self.detail = detail
        self.explain = explain
    }

    /// `seek detail --format json`: the record with its full fields, as its provider's only source.
    public init(detail: ItemDetail) {
        let item = detail.item
        self.init(MergedResult(item: item, score: 1, sources: [ResultSource(provider: item.provider, id: item.id, rank: 1)]), detail: detail)
    }

    public func write(to writer: inout JSONWriter) {
        writer.object { writeMembers(to: &$0) }
    }

    /// The object's members, for documents that add their own after them (`DetailDocument`).
    public func writeMembers(to writer: inout JSONWriter) {
        let item = result.item
        writer.field("id", item.id)
        writer.field("provider", item.provider)
        writer.field("kind", item.kind.rawValue)
        writer.field("title", item.title)
        writer.field("subtitle", item.subtitle)
        writer.field("creators", item.creators)
        writer.field("year", item.year)
        writer.field("isbn13", item.identifiers.isbn13)
        writer.field("imageURL", item.image(.large)?.address.text)
        writer.field("url", item.address?.text)
        writer.field("score", result.score)
        let explain = self.explain
        writer.field("sources") { $0.array(result.sources) { writer, source in SourceDocument(source, explain: explain).write(to: &writer) } }
        writer.field("provenance", result.provenance)
        writer.field("owned", item.owned.map(OwnedDocument.init))
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
        writer.field("note", detail.note)
    }
}

public struct SourceDocument: JSONWritable {
    public let source: ResultSource
    /// With `explain`, a source after its row's first carries `joinedBy`: the key that joined it.
    public let explain: Bool

    public init(_ source: ResultSource, explain: Bool = false) {
        self.source = source
        self.explain = explain
    }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("provider", source.provider)
            writer.field("id", source.id)
            writer.field("rank", source.rank)
            if explain, let joinedBy = source.joinedBy { writer.field("joinedBy", joinedBy) }
        }
    }
}

public struct ImageDocument: JSONWritable {
    public init(reference: ImageReference) {
        self.reference = reference
    }

    public let reference: ImageReference

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("url", reference.address.text)
            writer.field("width", reference.width)
            writer.field("height", reference.height)
        }
    }
}

public struct ContributorDocument: JSONWritable {
    public init(contributor: Contributor) {
        self.contributor = contributor
    }

    public let contributor: Contributor

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("name", contributor.name)
            writer.field("role", contributor.role)
        }
    }
}

public struct OutcomeDocument: JSONWritable {
    public init(outcome: ProviderOutcome) {
        self.outcome = outcome
    }

    public let outcome: ProviderOutcome

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", outcome.provider)
            Self.writeResult(of: outcome, to: &writer)
        }
    }

    /// The members every document that reports an outcome shares, after the provider's id.
    public static func writeResult(of outcome: ProviderOutcome, to writer: inout JSONWriter) {
        writer.field("status", outcome.status.rawValue)
        writer.field("count", outcome.count)
        writer.field("elapsedMs", outcome.elapsedMilliseconds)
        writer.field("error", outcome.error?.cause)
        writer.field("stale", outcome.stale)
    }
}

/// `seek search --format json` (and `trending`, which leaves out `query`); with `type` set, the
/// summary line that ends an ndjson stream.
public struct SearchDocument: JSONWritable {
    public init(query: String?, page: Int, results: [MergedResult], outcomes: [ProviderOutcome], next: String?, explain: Bool = false) {
        self.query = query
        self.page = page
        self.results = results
        self.outcomes = outcomes
        self.next = next
        self.explain = explain
    }

    /// The document of a finished search; trending leaves out the query (`includeQuery: false`).
    public init(_ result: SearchResult, includeQuery: Bool = true) {
        self.init(
            query: includeQuery ? result.query : nil, page: result.page, results: result.results,
            outcomes: result.outcomes, next: result.next?.token, explain: result.explain)
    }

    public let query: String?
    public let page: Int
    public let results: [MergedResult]
    public let outcomes: [ProviderOutcome]
    public let next: String?
    /// Each source after a row's first says which key joined it (`joinedBy`).
    public let explain: Bool
    public var type: String? = nil

    /// The same document as an ndjson `summary` line.
    public var summary: SearchDocument {
        var copy = self
        copy.type = "summary"
        return copy
    }

    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            if let type { writer.field("type", type) }
            if let query { writer.field("query", query) }
            writer.field("page", page)
            // Each result written where it is: no array of documents (and copies of every result) built first.
            let explain = self.explain
            writer.field("items") { $0.array(results) { writer, result in ItemDocument(result, explain: explain).write(to: &writer) } }
            writer.field("providers", outcomes.map(OutcomeDocument.init))
            writer.field("next", next)
        }
    }
}

/// An ndjson `batch` line: one provider's answer as it arrived, before merging. Each item is scored
/// as if it were found by that provider alone.
public struct BatchDocument: JSONWritable {
    public init(batch: ProviderBatch, weight: Double, ranking: RankingMethod) {
        self.batch = batch
        self.weight = weight
        self.ranking = ranking
    }

    public let batch: ProviderBatch
    public let weight: Double
    public let ranking: RankingMethod

    public func write(to writer: inout JSONWriter) {
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
public enum JSONText {
    /// Pretty JSON (two-space indents) with unescaped slashes.
    public static func pretty(_ value: some JSONWritable) -> String {
        JSONWriter.text(value, style: .pretty)
    }

    /// One-line JSON, for ndjson.
    public static func compact(_ value: some JSONWritable) -> String {
        JSONWriter.text(value, style: .compact)
    }
}
