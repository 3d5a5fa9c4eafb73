import Foundation
import SeekCore
import SeekKit

/// `seek detail --format json`: the item object with its full fields and `sources`, then `providers`
/// with the provider's outcome, as search lists them. When the provider failed it is still a document:
///
/// ```
/// { "id": "openlibrary:OL45804W", "item": null,
///   "providers": [ { "id": "openlibrary", "status": "timeout", "count": 0, "elapsedMs": 1002,
///                    "error": "timed out after 1s", "stale": false } ] }
/// ```
public struct DetailDocument: JSONWritable {
    /// The id asked for.
    public let id: ItemID
    /// The record, or nil when the provider failed.
    public let detail: ItemDetail?
    public let outcome: ProviderOutcome

    public init(id: ItemID, detail: ItemDetail?, outcome: ProviderOutcome) {
        self.id = id
        self.detail = detail
        self.outcome = outcome
    }

    /// The document of an engine's answer to a detail call (`SearchEngine.detailAnswer`).
    public init(id: ItemID, answer: ProviderAnswer<ItemDetail>) {
        self.init(id: id, detail: answer.value, outcome: answer.outcome { _ in 1 })
    }

    public func write(to writer: inout JSONWriter) {
        let providers = [OutcomeDocument(outcome: outcome)]
        writer.object { writer in
            if let detail {
                let result = MergedResult(item: detail.item, score: 1, sources: [
                    ResultSource(provider: detail.item.provider, id: detail.item.id, rank: 1),
                ])
                ItemDocument(result, detail: detail).writeMembers(to: &writer)
            } else {
                writer.field("id", id)
                writer.field("item") { $0.null() }
            }
            writer.field("providers", providers)
        }
    }
}
