import Foundation
import SeekCore
import SeekRuntime
import SeekStore

/// What the templates show, as mustache contexts. An absent value is `false` (never left out, so a
/// section never finds a value of the page around it).
enum WebView {
    /// Characters kept as they are in a path segment or a query value.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A value, or `false` when there is none.
    static func orFalse<T>(_ value: T?) -> Any {
        if let value { return value }
        return false
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// An item id in a path: `provider:value`, the value percent-encoded.
    static func path(_ id: ItemID) -> String {
        "\(encode(id.provider)):\(encode(id.value))"
    }

    static func searchHref(_ query: String, providers: String = "", cursor: String? = nil) -> String {
        var href = "/search?q=\(encode(query))"
        if !providers.isEmpty { href += "&providers=\(encode(providers))" }
        if let cursor { href += "&cursor=\(encode(cursor))" }
        return href
    }

    static func imageHref(_ id: ItemID, size: ImageSize = .medium) -> String {
        "/api/v1/items/\(path(id))/image?size=\(size.rawValue)"
    }

    /// The box an image is shown in, so the page does not jump as it loads: the provider's own
    /// size when it gave one, else a book's 2:3 or a GIF's square.
    static func box(_ item: Item, size: ImageSize) -> (width: Int, height: Int) {
        if let reference = item.image(size) ?? item.image(.medium), let width = reference.width, let height = reference.height,
           width > 0, height > 0 {
            return (width, height)
        }
        return item.kind == .gif ? (200, 200) : (180, 270)
    }

    static func initial(_ title: String) -> String {
        title.first.map { String($0).uppercased() } ?? "?"
    }

    static func name(_ provider: String, session: SeekSession) -> String {
        session.registry.provider(provider)?.descriptor.name ?? provider
    }

    /// One result as the `result` partial shows it; its link names the other sources (`also=`).
    static func result(_ result: MergedResult, favorites: Set<ItemID>, session: SeekSession) -> [String: Any] {
        let item = result.item
        let others = result.sources.map(\.id).filter { $0 != item.id }
        var href = "/items/\(path(item.id))"
        if !others.isEmpty { href += "?also=\(encode(others.map(\.description).joined(separator: ",")))" }
        let hasImage = !item.images.isEmpty
        let frame = box(item, size: .medium)
        return [
            "id": item.id.description, "kind": item.kind.rawValue, "title": item.title, "href": href,
            "subtitle": orFalse(item.subtitle),
            "creators": item.creators.isEmpty ? false as Any : item.creators.joined(separator: ", "),
            "year": orFalse(item.year.map(String.init)),
            "sources": result.sources.map { name($0.provider, session: session) },
            "hasImage": hasImage, "imageURL": imageHref(item.id), "width": frame.width, "height": frame.height,
            "initial": initial(item.title), "favorite": favorites.contains(item.id) ? "true" : "false",
        ]
    }

    /// A favourite from its stored snapshot (no provider is asked).
    static func favorite(_ favorite: Favorite, session: SeekSession) -> [String: Any] {
        let (width, height) = favorite.kind == .gif ? (200, 200) : (180, 270)
        return [
            "id": favorite.id.description, "kind": favorite.kind.rawValue, "title": favorite.title,
            "href": "/items/\(path(favorite.id))", "subtitle": false,
            "creators": favorite.creators.isEmpty ? false as Any : favorite.creators.joined(separator: ", "),
            "year": false, "sources": [name(favorite.provider, session: session)],
            "hasImage": favorite.imageURL != nil, "imageURL": imageHref(favorite.id), "width": width, "height": height,
            "initial": initial(favorite.title), "favorite": "true",
        ]
    }

    static func label(_ status: ProviderStatus, count: Int) -> String {
        switch status {
        case .ok: return count == 1 ? "1 result" : "\(count) results"
        case .empty: return "no results"
        case .timeout: return "timed out"
        case .error: return "failed"
        case .rateLimited: return "rate limited"
        case .unauthorized: return "key refused"
        case .skipped: return "no key"
        case .suspended: return "cooling down"
        case .unsupported: return "cannot search"
        }
    }

    /// A provider's part of the status strip: status, time taken, and when a cooled-down one is back.
    /// `suspensions`: when each cooling-down provider is back (`SeekSession.suspensions(of:)`).
    static func outcome(_ outcome: ProviderOutcome, suspensions: [String: Date], session: SeekSession) -> [String: Any] {
        var until: Any = false
        var untilText: Any = false
        if outcome.status == .suspended, let back = suspensions[outcome.provider] {
            until = back.formatted(.iso8601)
            untilText = back.formatted(date: .omitted, time: .standard)
        }
        let answeredOrTried = outcome.status != .skipped && outcome.status != .suspended && outcome.status != .unsupported
        return [
            "id": outcome.provider, "name": name(outcome.provider, session: session), "status": outcome.status.rawValue,
            "label": label(outcome.status, count: outcome.count),
            "elapsed": answeredOrTried ? "\(outcome.elapsedMilliseconds) ms" as Any : false,
            "error": orFalse(outcome.error?.cause), "until": until, "untilText": untilText,
        ]
    }

    /// A provider the streamed page is still waiting for.
    static func pending(_ provider: String, session: SeekSession) -> [String: Any] {
        ["id": provider, "name": name(provider, session: session), "status": "pending", "label": "waiting…",
         "elapsed": false, "error": false, "until": false, "untilText": false]
    }

    static func count(_ count: Int, page: Int) -> String {
        let results = count == 1 ? "1 result" : "\(count) results"
        return page > 1 ? "\(results) (page \(page))" : results
    }

    static func detail(id: ItemID, merged: ItemDetail, provenance: [String: String], details: [(provider: String, detail: ItemDetail)],
                       failures: [String], favorite: Bool, session: SeekSession) -> [String: Any] {
        let item = merged.item
        let frame = box(item, size: .large)
        var identifiers: [[String: String]] = []
        for isbn in item.identifiers.isbn13 { identifiers.append(["name": "ISBN-13", "value": isbn]) }
        for isbn in item.identifiers.isbn10 { identifiers.append(["name": "ISBN-10", "value": isbn]) }
        for (key, value) in item.identifiers.other.sorted(by: { $0.key < $1.key }) { identifiers.append(["name": key, "value": value]) }
        var facts: [[String: String]] = []
        if !merged.publishers.isEmpty { facts.append(["name": "Publishers", "value": merged.publishers.joined(separator: ", ")]) }
        if let date = merged.publishDate { facts.append(["name": "Published", "value": date]) }
        if let pages = merged.pageCount { facts.append(["name": "Pages", "value": String(pages)]) }
        if !merged.subjects.isEmpty { facts.append(["name": "Subjects", "value": merged.subjects.prefix(12).joined(separator: ", ")]) }
        for contributor in merged.contributors where !item.creators.contains(contributor.name) {
            facts.append(["name": contributor.role ?? "Contributor", "value": contributor.name])
        }
        let sources: [[String: Any]] = details.map { source in
            let sourceID = source.detail.item.id
            return [
                "name": name(source.provider, session: session), "id": sourceID.description,
                "href": "/items/\(path(sourceID))",
                "url": orFalse(source.detail.item.url.flatMap { ["http", "https"].contains($0.scheme?.lowercased() ?? "") ? $0.absoluteString : nil }),
            ]
        }
        let fields = provenance.isEmpty ? ["title": id.provider] : provenance
        let rows: [[String: String]] = fields.sorted(by: { $0.key < $1.key }).map {
            ["field": $0.key, "provider": name($0.value, session: session)]
        }
        return [
            "id": id.description, "kind": item.kind.rawValue, "title": item.title, "subtitle": orFalse(item.subtitle),
            "creators": item.creators.isEmpty ? false as Any : item.creators.joined(separator: ", "),
            "year": orFalse(item.year.map(String.init)),
            "hasImage": !item.images.isEmpty, "imageURL": imageHref(id, size: .large), "width": frame.width, "height": frame.height,
            "initial": initial(item.title), "favorite": favorite ? "true" : "false",
            "description": orFalse(merged.description.flatMap { $0.isEmpty ? nil : $0 }),
            "sources": sources, "identifiers": identifiers, "hasIdentifiers": !identifiers.isEmpty,
            "facts": facts, "hasFacts": !facts.isEmpty, "provenance": rows, "hasProvenance": !rows.isEmpty,
            "failures": failures, "hasFailures": !failures.isEmpty,
        ]
    }
}
