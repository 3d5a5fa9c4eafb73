import Foundation
import SeekCore
import SeekKit
import SeekRuntime
import SeekStore

/// What the templates show, as mustache contexts, in the reader's language (`WebStrings`). An absent
/// value is `false` (never left out, so a section never finds a value of the page around it).
///
/// Pages speak of sources and times in the reader's words: never an error's technical cause, a
/// variable, a command or a raw field name (those stay in the log, `seek providers` and the CLI).
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

    static func searchHref(_ query: String, providers: String = "", cursor: String? = nil, group: ResultGrouping = .work) -> String {
        var href = "/search?q=\(encode(query))"
        if !providers.isEmpty { href += "&providers=\(encode(providers))" }
        if group != .work { href += "&group=\(group.rawValue)" }
        if let cursor { href += "&cursor=\(encode(cursor))" }
        return href
    }

    /// The image route of `id`: the source's picture, or the cover Seek draws when it has none.
    static func imageHref(_ id: ItemID, size: ImageSize = .medium) -> String {
        "/api/v1/items/\(path(id))/image?size=\(size.rawValue)"
    }

    /// The box an image is shown in, so the page does not jump as it loads: the provider's own
    /// size when it gave one, else a book's 2:3 (a drawn cover's too) or a GIF's square.
    static func box(_ item: Item, size: ImageSize) -> (width: Int, height: Int) {
        if let reference = item.image(size) ?? item.image(.medium), let width = reference.width, let height = reference.height,
           width > 0, height > 0 {
            return (width, height)
        }
        return item.kind == .gif ? (200, 200) : (180, 270)
    }

    /// A source's name as the reader's language writes it (`sourceNames` of the strings), else its own.
    static func name(_ provider: String, session: SeekSession, strings: WebStrings? = nil) -> String {
        strings?.sourceNames[provider] ?? session.descriptor(of: provider)?.name ?? provider
    }

    /// One result as the `result` partial shows it; its link names the other sources (`also=`).
    static func result(_ result: MergedResult, favorites: Set<ItemID>, session: SeekSession, strings: WebStrings) -> [String: Any] {
        let item = result.item
        let others = result.sources.map(\.id).filter { $0 != item.id }
        var href = "/items/\(path(item.id))"
        if !others.isEmpty { href += "?also=\(encode(others.map(\.description).joined(separator: ",")))" }
        let frame = box(item, size: .medium)
        return [
            "id": item.id.description, "kind": item.kind.rawValue, "title": item.title, "href": href,
            "subtitle": orFalse(item.subtitle),
            "creators": item.creators.isEmpty ? false as Any : item.creators.joined(separator: ", "),
            "year": orFalse(item.year.map(String.init)),
            "sources": result.sources.map { name($0.provider, session: session, strings: strings) },
            "imageURL": imageHref(item.id), "width": frame.width, "height": frame.height,
            "favorite": favorites.contains(item.id) ? "true" : "false", "favoriteLabel": strings.format("favoriteOf", item.title),
            "owned": ownedBadge(item.owned, strings: strings),
        ]
    }

    /// The badge of a book the reader owns (issue 49): "In your library: EPUB, PDF"; false when not owned.
    static func ownedBadge(_ owned: OwnedCopy?, strings: WebStrings) -> Any {
        guard let owned else { return false }
        return owned.formats.isEmpty ? strings["owned"] : strings.format("ownedFormats", owned.formats.joined(separator: ", "))
    }

    /// A favourite from its stored snapshot (no provider is asked).
    static func favorite(_ favorite: Favorite, session: SeekSession, strings: WebStrings) -> [String: Any] {
        let (width, height) = favorite.kind == .gif ? (200, 200) : (180, 270)
        return [
            "id": favorite.id.description, "kind": favorite.kind.rawValue, "title": favorite.title,
            "href": "/items/\(path(favorite.id))", "subtitle": false,
            "creators": favorite.creators.isEmpty ? false as Any : favorite.creators.joined(separator: ", "),
            "year": false, "sources": [name(favorite.provider, session: session, strings: strings)],
            "imageURL": imageHref(favorite.id), "width": width, "height": height,
            "favorite": "true", "favoriteLabel": strings.format("favoriteOf", favorite.title),
            "owned": ownedBadge(favorite.owned, strings: strings),
        ]
    }

    /// A status in a word or two, for the strip.
    static func label(_ status: ProviderStatus, count: Int, strings: WebStrings) -> String {
        switch status {
        case .ok: return count == 1 ? strings["statusOk1"] : strings.format("statusOkN", String(count))
        case .empty: return strings["statusEmpty"]
        case .timeout: return strings["statusTimeout"]
        case .error: return strings["statusError"]
        case .rateLimited: return strings["statusRateLimited"]
        case .unauthorized: return strings["statusUnauthorized"]
        case .skipped: return strings["statusSkipped"]
        case .suspended: return strings["statusSuspended"]
        case .unsupported: return strings["statusUnsupported"]
        }
    }

    /// A time of day as the page shows it ("16:05"); the script writes it again in the reader's own
    /// time zone from the `<time datetime>` beside it.
    static func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let hour = parts.hour ?? 0, minute = parts.minute ?? 0
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// A provider's part of the status strip: status, time taken, when a resting one is back, and
    /// in words what went wrong (for the notice when none answered).
    /// `suspensions`: when each resting provider is back (`SeekSession.suspensions(of:)`).
    static func outcome(_ outcome: ProviderOutcome, suspensions: [String: Date], session: SeekSession, strings: WebStrings) -> [String: Any] {
        var until: Any = false
        var untilText: Any = false
        let back = suspensions[outcome.provider] ?? outcome.error.flatMap { error -> Date? in
            error.kind.until
        }
        if outcome.status == .suspended, let back {
            until = back.formatted(.iso8601)
            untilText = strings.format("backAt", clock(back))
        }
        let answeredOrTried = outcome.status != .skipped && outcome.status != .suspended && outcome.status != .unsupported
        let name = name(outcome.provider, session: session, strings: strings)
        return [
            "id": outcome.provider, "name": name, "status": outcome.status.rawValue, "count": outcome.count,
            "label": label(outcome.status, count: outcome.count, strings: strings),
            "elapsed": answeredOrTried ? "\(outcome.elapsedMilliseconds) ms" as Any : false,
            "words": words(outcome, name: name, back: back, strings: strings), "until": until, "untilText": untilText,
        ]
    }

    /// What happened to a provider, in a sentence ("Open Library is resting after errors — back at 16:05.").
    static func words(_ outcome: ProviderOutcome, name: String, back: Date?, strings: WebStrings) -> String {
        switch outcome.status {
        case .ok, .empty: return label(outcome.status, count: outcome.count, strings: strings)
        case .suspended:
            return back.map { strings.format("wordsSuspended", name, clock($0)) } ?? strings.format("wordsSuspendedSoon", name)
        case .skipped: return strings.format("wordsSkipped", name)
        case .unsupported: return strings.format("wordsUnsupported", name)
        case .timeout: return strings.format("wordsTimeout", name)
        case .rateLimited: return strings.format("wordsRateLimited", name)
        case .unauthorized: return strings.format("wordsUnauthorized", name)
        case .error: return outcome.error.map { words($0, name: name, strings: strings) } ?? strings.format("wordsNetwork", name)
        }
    }

    /// What `error` means to a reader, naming the source by `name`: never its URL, status line, body,
    /// a variable or a command (`SeekError.description`, for the log, has those).
    static func words(_ error: SeekError, name: String, kinds: [ItemKind] = [], strings: WebStrings) -> String {
        switch error.kind {
        case .notFound:
            let key = kinds == [.book] ? "wordsNotFoundBook" : kinds == [.gif] ? "wordsNotFoundGIF" : "wordsNotFound"
            return strings.format(key, name)
        case .rateLimited: return strings.format("wordsRateLimited", name)
        case .suspended:
            return error.kind.until.map { strings.format("wordsSuspended", name, clock($0)) } ?? strings.format("wordsSuspendedSoon", name)
        case .timeout: return strings.format("wordsTimeout", name)
        case .network: return strings.format("wordsNetwork", name)
        case .httpStatus where (error.kind.statusCode ?? 0) >= 500: return strings.format("wordsServer", name)
        case .httpStatus, .undecodable, .bodyTooLarge: return strings.format("wordsUnreadable", name)
        case .unauthorized: return strings.format("wordsUnauthorized", name)
        case .missingKey: return strings.format("wordsSkipped", name)
        case .unsupported: return strings.format("wordsUnsupported", name)
        case .cancelled: return strings["wordsCancelled"]
        case .invalidInput: return strings["wordsInvalid"]
        default: return strings.format("wordsBroken", name)  // .configuration, .notRegistered
        }
    }

    /// A provider the streamed page is still waiting for.
    static func pending(_ provider: String, session: SeekSession, strings: WebStrings) -> [String: Any] {
        ["id": provider, "name": name(provider, session: session, strings: strings), "status": "pending", "count": 0, "label": strings["statusPending"],
         "elapsed": false, "words": false, "until": false, "untilText": false]
    }

    static func count(_ count: Int, page: Int, strings: WebStrings) -> String {
        let results = strings.results(count)
        return page > 1 ? strings.format("pageN", results, String(page)) : results
    }

    /// Attributes whose value is an amount of Korean won (Aladin's prices).
    static let wonAttributes: Set<String> = ["priceSales", "priceStandard", "usedMinPrice"]

    /// An attribute's value as a reader reads it: a price with its currency and thousands marked.
    static func attributeValue(_ key: String, _ value: String, strings: WebStrings) -> String {
        guard wonAttributes.contains(key), let amount = Int(value), amount >= 0 else { return value }
        let digits = String(amount)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return strings.code == "ko" ? grouped + "원" : "₩" + grouped
    }

    static func detail(id: ItemID, merged: ItemDetail, provenance: [String: String], details: [(provider: String, detail: ItemDetail)],
                       failures: [String], favorite: Bool, session: SeekSession, strings: WebStrings) -> [String: Any] {
        let item = merged.item
        let frame = box(item, size: .large)
        var identifiers: [[String: String]] = []
        for isbn in item.identifiers.isbn13 { identifiers.append(["name": strings.label("isbn13"), "value": isbn]) }
        for isbn in item.identifiers.isbn10 { identifiers.append(["name": strings.label("isbn10"), "value": isbn]) }
        for (key, value) in item.identifiers.other.sorted(by: { $0.key < $1.key }) {
            identifiers.append(["name": strings.label(key), "value": value])
        }
        var facts: [[String: String]] = []
        if !merged.publishers.isEmpty { facts.append(["name": strings.label("publishers"), "value": merged.publishers.joined(separator: ", ")]) }
        if let date = merged.publishDate { facts.append(["name": strings.label("published"), "value": date]) }
        if let pages = merged.pageCount { facts.append(["name": strings.label("pages"), "value": String(pages)]) }
        if !merged.subjects.isEmpty { facts.append(["name": strings.label("subjects"), "value": merged.subjects.prefix(12).joined(separator: ", ")]) }
        for contributor in merged.contributors where !item.creators.contains(contributor.name) {
            facts.append(["name": strings.label(contributor.role ?? "contributor"), "value": contributor.name])
        }
        for (key, value) in merged.attributes.sorted(by: { $0.key < $1.key }) where !value.isEmpty {
            facts.append(["name": strings.label(key), "value": attributeValue(key, value, strings: strings)])
        }
        let sources: [[String: Any]] = details.map { source in
            let sourceID = source.detail.item.id
            let name = name(source.provider, session: session, strings: strings)
            return [
                "name": name, "id": sourceID.description,
                "href": "/items/\(path(sourceID))",
                "url": orFalse(source.detail.item.url.flatMap { ["http", "https"].contains($0.scheme?.lowercased() ?? "") ? $0.absoluteString : nil }),
                "on": strings.format("onSource", name),
            ]
        }
        let fields = provenance.isEmpty ? ["title": id.provider] : provenance
        let rows: [[String: String]] = fields.sorted(by: { $0.key < $1.key }).map {
            ["field": strings.label($0.key), "provider": name($0.value, session: session, strings: strings)]
        }
        // A demo record's note is said in the reader's language; a source's own note as it wrote it.
        let notes = details.compactMap { $0.detail.note?.trimmed() }.filter { !$0.isEmpty }
            .map { $0 == ProviderDemo.synthesisNote ? strings["demoNote"] : $0 }
        return [
            "id": id.description, "kind": item.kind.rawValue, "title": item.title, "subtitle": orFalse(item.subtitle),
            "creators": item.creators.isEmpty ? false as Any : item.creators.joined(separator: ", "),
            "year": orFalse(item.year.map(String.init)),
            "imageURL": imageHref(id, size: .large), "width": frame.width, "height": frame.height,
            "coverAlt": strings.format("coverOf", item.title), "favorite": favorite ? "true" : "false",
            "description": orFalse(merged.description.flatMap { $0.isEmpty ? nil : $0 }),
            "notes": Array(Set(notes)).sorted(), "hasNotes": !notes.isEmpty,
            "sources": sources, "identifiers": identifiers, "hasIdentifiers": !identifiers.isEmpty,
            "facts": facts, "hasFacts": !facts.isEmpty, "provenance": rows, "hasProvenance": !rows.isEmpty,
            "failures": failures, "hasFailures": !failures.isEmpty,
            "owned": ownedBadge(item.owned ?? details.lazy.compactMap(\.detail.item.owned).first, strings: strings),
        ]
    }
}
