import Foundation
import SeekKit
import SeekCore

/// Open Library as a Seek provider: work search, work and edition detail with author names,
/// and cover images by cover id. Needs no key.
public struct OpenLibraryProvider: SearchProvider {
    public static let id = "openlibrary"
    public static let defaultBaseURL = "https://openlibrary.org"
    public static let defaultCoversURL = "https://covers.openlibrary.org"
    /// The fields search asks for: since 2025 the default set lacks `isbn` and `publisher`.
    public static let searchFields = [
        "key", "title", "subtitle", "author_name", "author_key", "first_publish_year", "cover_i",
        "cover_edition_key", "isbn", "edition_count", "publisher", "language",
    ]
    /// Open Library caps no page size, but big pages are slow for it and for us.
    public static let maxLimit = 100
    /// How many `/type/redirect` records detail follows before giving up.
    public static let maxRedirectHops = 5
    /// Detail names at most this many authors, fetching at most `authorFetchWidth` at once.
    static let maxAuthors = 20
    static let authorFetchWidth = 4
    /// The author lookups of one detail (names only: the record is already here) end after a quarter of
    /// the detail's deadline, at most this long, and never after half of what is left of it.
    public static let maxAuthorWait: Duration = .seconds(3)

    /// How the composition root builds this provider, and its policy: Open Library asks for 1–3 requests a
    /// second (its nginx allows bursts of 200); its demo is OpenLibraryDemo.swift.
    public static let factory = ProviderFactory(
        id: "openlibrary", defaultRateLimit: RateLimit(requests: 3, per: .seconds(1), burst: 20), demo: demo
    ) { try OpenLibraryProvider(environment: $0) }

    public let descriptor: ProviderDescriptor
    /// The API base (`https://openlibrary.org`); a path in it is kept.
    public let baseURL: URL
    /// The cover store base (`https://covers.openlibrary.org`).
    public let coversURL: URL
    /// The site whose pages items link to (`https://openlibrary.org/works/OL45804W`): the API base unless
    /// `SEEK_OPENLIBRARY_SITE_URL` names another (demo mode: the API on its replay server, links to the site).
    public let siteURL: URL
    /// False when `SEEK_OPENLIBRARY_COVERS_URL` is `none`: items carry no cover URL (demo mode, whose
    /// recordings hold no image bytes).
    public let showsCovers: Bool
    /// What comes before a cover's file name and after its `?`, worked out once: a search builds four
    /// cover URLs for every item.
    private let coverStem: String, coverQuery: String
    private let client: ProviderClient

    public init(
        baseURL: URL, coversURL: URL, transport: any HTTPTransport, siteURL: URL? = nil,
        showsCovers: Bool = true
    ) {
        self.baseURL = baseURL
        self.coversURL = coversURL
        self.siteURL = siteURL ?? baseURL
        self.showsCovers = showsCovers
        (coverStem, coverQuery) = Self.coverTemplate(coversURL)
        self.client = ProviderClient(provider: Self.id, transport: transport)
        self.descriptor = ProviderDescriptor(
            id: Self.id, name: "Open Library", kinds: [.book], capabilities: [.search, .detail, .image],
            paging: .offset, needsKey: false, shortcuts: ["ol"])
    }

    /// Reads `SEEK_OPENLIBRARY_URL`, `SEEK_OPENLIBRARY_COVERS_URL` (or `none`) and
    /// `SEEK_OPENLIBRARY_SITE_URL` (environment over config file). `providers.openlibrary.timeout|weight`
    /// are the engine's, read once for every provider (`ProviderTuning`), never here.
    public init(environment: ProviderEnvironment) throws {
        let settings = environment.settings
        let base = try settings.baseURL("SEEK_OPENLIBRARY_URL", provider: Self.id, default: Self.defaultBaseURL)
        // `baseURL` would fall back to the config file's `providers.openlibrary.url` (the API), so the
        // covers and site settings are looked up under their own keys and only validated through `baseURL`.
        func own(_ variable: String, key: String, default fallback: String) throws -> URL {
            let text = settings.string(variable, provider: Self.id, key: key) ?? fallback
            return try Settings(environment: [variable: text]).baseURL(variable, provider: Self.id, default: fallback)
        }
        let variable = "SEEK_OPENLIBRARY_COVERS_URL"
        let showsCovers = settings.string(variable, provider: Self.id, key: "coversURL")?.lowercased() != "none"
        let covers = showsCovers ? try own(variable, key: "coversURL", default: Self.defaultCoversURL) : base
        let site = try own("SEEK_OPENLIBRARY_SITE_URL", key: "siteURL", default: base.absoluteString)
        self.init(baseURL: base, coversURL: covers, transport: environment.transport, siteURL: site, showsCovers: showsCovers)
    }

    public var endpoint: String { Redaction.redact(url: baseURL) }

    // MARK: Search

    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let query = request.query.trimmed()
        guard !query.isEmpty else { throw error(.invalidInput, "the search query is empty") }
        let limit = min(request.limit, Self.maxLimit)
        let url = baseURL.appending(path: "/search.json", query: [
            ("q", query),
            ("fields", Self.searchFields.joined(separator: ",")),
            ("limit", String(limit)),
            ("offset", String(request.offset)),
            ("lang", request.language),
        ])
        let response = try await client.fetch(url)
        if response.status == 422 { throw rejectedQuery(response) }
        try client.check(response, url: url)
        let envelope = try client.readJSON(from: response) { reader throws(JSONParseError) in
            try OpenLibrarySearchEnvelope(reading: &reader)
        }
        if let failure = envelope.error {
            throw error(.undecodable, client.body("the search failed on the server (\(failure)) and sent no results", response))
        }
        guard let allDocs = envelope.docs else {
            throw error(.undecodable, client.body("not a search response: no \"docs\" list", response))
        }
        // A server that sends more than `limit` asked for does not get to overfill the page.
        let docs = Array(allDocs.prefix(limit))
        // A short page is the last one even when the total is unknown.
        let known = envelope.numFound ?? (docs.count < limit ? request.offset + docs.count : nil)
        let next = SearchPage.nextOffset(after: request, received: docs.count, total: known)
        return SearchPage(items: docs.compactMap(item(from:)), total: envelope.numFound, next: next)
    }

    /// A FastAPI 422 (`{"detail": [{"msg": …}]}`) as invalid input, with its messages.
    private func rejectedQuery(_ response: HTTPResponse) -> SeekError {
        let body = try? JSONValue(parsing: response.body)
        var messages: [String] = []
        if let detail = body?["detail"] {
            if let text = detail.stringValue { messages.append(text) }
            for entry in detail.arrayValue ?? [] {
                if let message = entry["msg"]?.stringValue { messages.append(message) }
            }
        }
        let reason = messages.isEmpty ? client.body("the query was rejected", response) : messages.joined(separator: "; ")
        return error(.invalidInput, "Open Library rejected the query (HTTP 422): \(reason)")
    }

    /// One search doc as an item; nil for docs without an Open Library key (2013 `ia:…` docs).
    func item(from doc: OpenLibrarySearchDoc) -> Item? {
        // Orphaned editions are indexed as works with an edition key (`/works/OL10910782M`).
        guard let key = doc.key, let olid = OpenLibraryID(parsing: key, kinds: [.work, .edition]) else { return nil }
        var identifiers = Identifiers(isbnsIn: doc.isbns)
        identifiers.other[olid.kind == .work ? "openlibraryWork" : "openlibraryEdition"] = olid.value
        var item = Item(
            id: ItemID(provider: Self.id, value: olid.value), kind: .book, title: Self.title(doc.title),
            subtitle: Self.nonEmpty(doc.subtitle), creators: doc.authorNames.uniquedTrimmed(),
            year: doc.firstPublishYear, identifiers: identifiers, images: images(coverID: doc.coverID))
        item.address = siteURL.appendingAddress(path: olid.path)
        return item
    }

    // MARK: Detail

    /// A work (`OL…W`, from `/works`) or an edition (`OL…M`, from `/books`), with its authors' names.
    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        guard id.provider == Self.id else {
            throw error(.invalidInput, "\(id) is not an Open Library id")
        }
        guard let olid = OpenLibraryID(parsing: id.value, kinds: [.work, .edition]) else {
            throw error(.invalidInput, "'\(id.value)' is not an Open Library work or edition id (OL…W or OL…M)")
        }
        let start = ContinuousClock.now
        // The deadline the engine runs this call under (it sets it on the call); called alone, the descriptor's.
        let deadline = options.timeout ?? descriptor.defaultTimeout
        let authorsDue = { Self.authorDeadline(start: start, deadline: deadline) }
        switch olid.kind {
        case .edition: return try await editionDetail(olid, asked: id, authorsDue: authorsDue)
        case .work, .author: return try await workDetail(olid, asked: id, authorsDue: authorsDue)
        }
    }

    /// When the author lookups of a detail that started at `start` under `deadline` must end (`maxAuthorWait`).
    public static func authorDeadline(start: ContinuousClock.Instant, deadline: Duration) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        let left = deadline - (now - start)
        return now + max(.zero, min(deadline / 4, maxAuthorWait, left / 2))
    }

    /// Whether `item` is the record of `requested`: Open Library ids compare without regard to case or a
    /// key path around them (`ol45804w`, `/works/OL45804W`).
    public func isRecord(_ item: Item, of requested: ItemID) -> Bool {
        let kinds = OpenLibraryID.Kind.allCases
        guard item.id.provider == requested.provider,
              let asked = OpenLibraryID(parsing: requested.value, kinds: kinds),
              let answered = OpenLibraryID(parsing: item.id.value, kinds: kinds)
        else { return item.id == requested }
        return asked == answered
    }

    /// The id the record names itself by (its `key`), else the one it was fetched as; and the redirect
    /// from the id asked for when Open Library sent seek elsewhere.
    private func identity(of record: OpenLibraryRecord, fetched: OpenLibraryID, requested: OpenLibraryID, asked: ItemID)
        -> (id: OpenLibraryID, redirect: ItemRedirect?)
    {
        let named = record.key.flatMap { OpenLibraryID(parsing: $0, kinds: OpenLibraryID.Kind.allCases) } ?? fetched
        let redirect = fetched == requested ? nil : ItemRedirect(from: asked, to: ItemID(provider: Self.id, value: fetched.value))
        return (named, redirect)
    }

    private func workDetail(
        _ requested: OpenLibraryID, asked: ItemID, authorsDue: () -> ContinuousClock.Instant
    ) async throws -> ItemDetail {
        let (fetched, record) = try await fetchRecord(requested)
        let (olid, redirect) = identity(of: record, fetched: fetched, requested: requested, asked: asked)
        let authors = try await authorNames(record.authorKeys, until: authorsDue())
        let identifiers = Identifiers(other: ["openlibraryWork": olid.value])
        let item = Item(
            id: ItemID(provider: Self.id, value: olid.value), kind: .book, title: Self.title(record.title),
            subtitle: Self.nonEmpty(record.subtitle), creators: authors, year: record.firstPublishDate?.firstYear,
            identifiers: identifiers, images: images(coverID: record.covers.first { $0 > 0 }),
            url: siteURL.appending(path: olid.path, query: []))
        return ItemDetail(
            item: item, description: Self.nonEmpty(record.description),
            contributors: authors.map { Contributor(name: $0, role: "author") },
            subjects: record.subjects.uniquedTrimmed(), publishDate: Self.nonEmpty(record.firstPublishDate),
            attributes: attributes(record, requested: requested, resolved: fetched), redirect: redirect)
    }

    private func editionDetail(
        _ requested: OpenLibraryID, asked: ItemID, authorsDue: () -> ContinuousClock.Instant
    ) async throws -> ItemDetail {
        let (fetched, record) = try await fetchRecord(requested)
        let (olid, redirect) = identity(of: record, fetched: fetched, requested: requested, asked: asked)
        let work = record.workKeys.lazy.compactMap { OpenLibraryID(parsing: $0, kinds: [.work]) }.first
        var authorKeys = record.authorKeys
        let due = authorsDue()
        if authorKeys.isEmpty, let work {
            // Some editions name no authors; their work does. Best effort, within the author lookups'
            // time: without it, no creators.
            authorKeys = await Self.withinDeadline(due) { try await fetchRecord(work).record.authorKeys } ?? []
        }
        let authors = try await authorNames(authorKeys, until: due)
        var identifiers = Identifiers(isbnsIn: record.isbn13 + record.isbn10, other: ["openlibraryEdition": olid.value])
        identifiers.other["openlibraryWork"] = work?.value
        let item = Item(
            id: ItemID(provider: Self.id, value: olid.value), kind: .book, title: Self.title(record.title),
            subtitle: Self.nonEmpty(record.subtitle), creators: authors, year: record.publishDate?.firstYear,
            identifiers: identifiers, images: images(coverID: record.covers.first { $0 > 0 }),
            url: siteURL.appending(path: olid.path, query: []))
        let others = record.contributors.filter { !$0.name.trimmed().isEmpty }
        return ItemDetail(
            item: item, description: Self.nonEmpty(record.description),
            contributors: authors.map { Contributor(name: $0, role: "author") } + others,
            subjects: record.subjects.uniquedTrimmed(), publishers: record.publishers.uniquedTrimmed(),
            publishDate: Self.nonEmpty(record.publishDate), pageCount: record.numberOfPages.flatMap { $0 > 0 ? $0 : nil },
            attributes: attributes(record, requested: requested, resolved: fetched), redirect: redirect)
    }

    private func attributes(_ record: OpenLibraryRecord, requested: OpenLibraryID, resolved: OpenLibraryID) -> [String: String] {
        var attributes: [String: String] = [:]
        attributes["firstSentence"] = Self.nonEmpty(record.firstSentence)
        attributes["lastModified"] = Self.nonEmpty(record.lastModified)
        if requested != resolved { attributes["redirectedFrom"] = requested.value }
        return attributes
    }

    /// Fetches `/{works|books|authors}/{id}.json`, following `/type/redirect` records up to
    /// `maxRedirectHops`; a deleted or missing record is `.notFound`.
    func fetchRecord(_ requested: OpenLibraryID) async throws -> (id: OpenLibraryID, record: OpenLibraryRecord) {
        var current = requested
        var hops = 0
        while true {
            let url = baseURL.appending(path: current.path + ".json", query: [])
            let response = try await client.get(url)
            let record = try client.decode(OpenLibraryRecord.self, from: response)
            if let failure = record.error {
                let kind: SeekError.Kind = failure == "notfound" ? .notFound : .undecodable
                throw error(kind, client.body("\(current.path) answered with an error (\(failure))", response))
            }
            switch record.type {
            case "/type/redirect":
                guard let location = record.location,
                      let target = OpenLibraryID(parsing: location, kinds: [current.kind])
                else {
                    throw error(.undecodable, client.body("\(current.path) redirects to no usable \(current.kind.folder) record", response))
                }
                hops += 1
                guard hops <= Self.maxRedirectHops else {
                    throw error(.network, "too many redirects: \(requested.path) still redirects after \(Self.maxRedirectHops) hops (last to \(target.path))")
                }
                current = target
            case "/type/delete":
                throw error(.notFound, "\(current.path) was deleted")
            case let type where type == nil || type == current.kind.recordType:
                guard record.looksLikeRecord else {
                    throw error(.undecodable, client.body("\(current.path) is not a \(current.kind.folder) record", response))
                }
                return (current, record)
            case let type:
                throw error(.undecodable, "\(current.path) is a \(type ?? "?") record, not \(current.kind.recordType)")
            }
        }
    }

    /// The authors' names in the given order, fetched a few at a time until `due`; an author that cannot
    /// be fetched, or not by then, is left out rather than failing the detail.
    func authorNames(_ keys: [String], until due: ContinuousClock.Instant) async throws -> [String] {
        var ids: [OpenLibraryID] = []
        for key in keys {
            if let id = OpenLibraryID(parsing: key, kinds: [.author]), !ids.contains(id) { ids.append(id) }
        }
        ids = Array(ids.prefix(Self.maxAuthors))
        guard !ids.isEmpty else { return [] }
        let names = await withTaskGroup(of: (Int, String?).self) { group in
            var names = [String?](repeating: nil, count: ids.count)
            // A few at a time: one more starts as each one ends.
            var pending = Array(ids.enumerated()).reversed().map { $0 }
            for _ in 0..<Self.authorFetchWidth {
                guard let (index, id) = pending.popLast() else { break }
                group.addTask { (index, await authorName(id, until: due)) }
            }
            for await (index, name) in group {
                if names.indices.contains(index) { names[index] = name }
                if let (index, id) = pending.popLast() {
                    group.addTask { (index, await authorName(id, until: due)) }
                }
            }
            return names
        }
        try Task.checkCancellation()
        return names.compactMap { $0 }.uniquedTrimmed()
    }

    /// An author's name, or nil when the record cannot be fetched by `due`.
    private func authorName(_ id: OpenLibraryID, until due: ContinuousClock.Instant) async -> String? {
        await Self.withinDeadline(due) { try await fetchRecord(id).record.displayName } ?? nil
    }

    /// `operation`'s value, or nil when it fails or `due` passes first (it is then cancelled, not awaited).
    static func withinDeadline<T: Sendable>(
        _ due: ContinuousClock.Instant, _ operation: @escaping @Sendable () async throws -> T
    ) async -> T? {
        let left = due - .now
        guard left > .zero else { return nil }
        return try? await Deadline.race(left, operation)
    }

    // MARK: Images

    /// The cover at every size; `?default=false` makes a missing cover a 404 instead of a blank image.
    func images(coverID: Int?) -> [ImageSize: ImageReference] {
        guard showsCovers, let coverID, coverID > 0 else { return [:] }
        var images = [ImageSize: ImageReference](minimumCapacity: 4)
        let id = String(coverID)
        for (size, suffix) in Self.coverSuffixes {
            guard let address = URLText(Self.joined(coverStem, id, suffix, coverQuery)) else { continue }
            images[size] = ImageReference(address: address, size: size)
        }
        return images
    }

    /// Each size's cover file name ending, and the `?` before the store's query.
    private static let coverSuffixes: [(ImageSize, String)] = [
        (.small, "-S.jpg?"), (.medium, "-M.jpg?"), (.large, "-L.jpg?"), (.original, ".jpg?"),
    ]

    /// The four texts as one, in one allocation: joining them with `+` grew the string twice a URL,
    /// and a search builds four cover URLs an item (issue 30).
    private static func joined(_ first: String, _ second: String, _ third: String, _ fourth: String) -> String {
        var text = ""
        text.reserveCapacity(first.utf8.count + second.utf8.count + third.utf8.count + fourth.utf8.count)
        text += first
        text += second
        text += third
        text += fourth
        return text
    }

    /// `https://covers.openlibrary.org/b/id/` and `default=false` for the default store. A query of the
    /// store's own (a proxy's key, say) follows `default=false`, after the file name; a fragment is dropped.
    static func coverTemplate(_ coversURL: URL) -> (stem: String, query: String) {
        guard var components = URLComponents(url: coversURL, resolvingAgainstBaseURL: false) else {
            return (coversURL.absoluteString + "/b/id/", "default=false")
        }
        let query = ["default=false", components.percentEncodedQuery].compactMap { $0 }.filter { !$0.isEmpty }
        components.query = nil
        components.fragment = nil
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path
        return ((components.url?.absoluteString ?? coversURL.absoluteString) + "/b/id/", query.joined(separator: "&"))
    }

    // MARK: Helpers

    private func error(_ kind: SeekError.Kind, _ detail: String) -> SeekError {
        SeekError(kind, provider: Self.id, detail: detail)
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmed(), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    private static func title(_ text: String?) -> String {
        nonEmpty(text) ?? "(untitled)"
    }
}
