import Foundation
import SeekCore
import SeekKit

/// "Your library": the reader's Calibre library as a source (issue 49).
///
/// `SEEK_CALIBRE_LIBRARY` (or `providers.calibre.library`) names the library folder; unset, the source
/// is `skipped`. Searches go to Seek's own index of the library (`CalibreIndex`, in the cache folder),
/// brought up to date at each search when Calibre changed the library; a detail is read from
/// `metadata.db` itself, read-only. Every item carries `owned` (its id and the formats the library
/// keeps), so a merged row that a library book joined says the reader owns it (`OwnedRows`).
///
/// The library is local: `--demo` leaves it as it is, and its weight is low (0.01), so a book found in
/// the library alone ranks below every row that remote sources agree on.
public struct CalibreProvider: SearchProvider {
    public static let id = "calibre"
    public static let libraryVariable = "SEEK_CALIBRE_LIBRARY"
    /// Far below 1: SearXNG's score of a row two remote sources agree on, at any rank of a page of at most
    /// 100, is at least 2 × (1/100 + 1/100) = 0.04, and a library-only row scores at most this.
    public static let defaultWeight = 0.01

    public let descriptor: ProviderDescriptor
    /// The library folder; nil when none is set.
    public let root: URL?
    let index: CalibreIndex?

    /// A provider over the library in `root` (nil: skipped), with its index in `indexDirectory`.
    public init(root: URL?, indexDirectory: URL) {
        self.root = root?.standardizedFileURL
        self.index = root.map { CalibreIndex(library: CalibreLibrary(root: $0), directory: indexDirectory) }
        descriptor = ProviderDescriptor(
            id: Self.id, name: "Your library", kinds: [.book], capabilities: [.search, .detail, .image],
            paging: .offset, needsKey: true, defaultTimeout: .seconds(20), weight: Self.defaultWeight, shortcuts: ["lib"])
    }

    /// From settings: `SEEK_CALIBRE_LIBRARY` (or `providers.calibre.library`), the index under the cache
    /// folder (`SEEK_CACHE_DIR`). `providers.calibre.timeout|weight` are the engine's (`ProviderTuning`).
    public init(environment: ProviderEnvironment) throws {
        let settings = environment.settings
        let folder = settings.string(Self.libraryVariable, provider: Self.id, key: "library")?.trimmed()
        let root = folder.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: Self.expandingTilde($0, settings: settings), isDirectory: true) }
        self.init(root: root, indexDirectory: settings.cacheDirectory.appendingPathComponent("calibre"))
    }

    /// How the composition root builds it: no rate limit (it is local) and no demo (`--demo` leaves it as it is).
    public static let factory = ProviderFactory(id: id) { try CalibreProvider(environment: $0) }

    /// The library folder a session's settings name, for the image cache's `LibraryFilesTransport`.
    public static func libraryRoot(settings: Settings) -> URL? {
        guard let folder = settings.string(libraryVariable, provider: id, key: "library")?.trimmed(), !folder.isEmpty else { return nil }
        return URL(fileURLWithPath: expandingTilde(folder, settings: settings), isDirectory: true)
    }

    private static func expandingTilde(_ path: String, settings: Settings) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return Settings.home(settings.environment) + path.dropFirst()
    }

    public var isConfigured: Bool { root != nil }

    public var requirements: [ProviderRequirement] {
        [ProviderRequirement(variable: Self.libraryVariable, purpose: "your Calibre library folder, the one holding metadata.db", isSet: root != nil)]
    }

    public var endpoint: String { root.map { URL(fileURLWithPath: $0.path).absoluteString } ?? "" }

    /// The library and the state it is in: a change made in Calibre is a new scope, so the response
    /// cache never answers a search with the library as it was.
    public func answerScope(_ options: CallOptions) -> String {
        guard let index else { return endpoint }
        let state = (try? index.library.signature().description) ?? "unreadable"
        return "\(endpoint)#index\(CalibreIndex.layout)@\(state)"
    }

    // MARK: - Calls

    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let index = try requireLibrary()
        let text = request.query.trimmed()
        guard !text.isEmpty else { throw SeekError(.invalidInput, provider: Self.id, detail: "the search text is empty") }
        guard let match = CalibreQuery.match(text) else { return SearchPage(items: []) }
        let offset = request.offset
        let hits: [CalibreIndex.Hit]
        do {
            hits = try await index.search(match, limit: request.limit + 1, offset: offset)
        } catch let error as CalibreError {
            throw error.seekError
        }
        let items = hits.prefix(request.limit).map { item($0, root: index.library.root) }
        let next = hits.count > request.limit ? SearchPage.nextOffset(after: request, received: items.count, total: nil) : nil
        return SearchPage(items: items, total: nil, next: next)
    }

    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        let index = try requireLibrary()
        guard id.provider == Self.id, let number = Int64(id.value), number > 0 else {
            throw SeekError(.invalidInput, provider: Self.id, detail: "a library id is calibre:<book number> (got \(id))")
        }
        let library = index.library
        // Off the caller's thread: the read may wait for Calibre's write (the busy timeout).
        let record: (book: CalibreBook, comment: String?, rating: Int?)?
        do {
            record = try await Task.detached(priority: Task.currentPriority) {
                try library.read { db -> (book: CalibreBook, comment: String?, rating: Int?)? in
                    guard let book = try CalibreBook.load(db, ids: [number]).first else { return nil }
                    return (book, try CalibreBook.comment(db, id: number), try CalibreBook.rating(db, id: number))
                }
            }.value
        } catch let error as CalibreError {
            throw error.seekError
        }
        guard let record else {
            throw SeekError(.notFound, provider: Self.id, detail: "the library has no book \(number) (removed in Calibre?)")
        }
        return detail(record.book, comment: record.comment, rating: record.rating, root: library.root)
    }

    /// The library's copy of `item`, if it holds one: a book with one of its ISBN-13s (the first 100),
    /// else one with the same title (normalised) and an author in common with `creators`.
    public func ownedCopy(of item: Item, creators: [String]) async throws -> OwnedCopy? {
        let index = try requireLibrary()
        func copy(_ hit: CalibreIndex.Hit) -> OwnedCopy {
            OwnedCopy(id: ItemID(provider: Self.id, value: String(hit.id)), formats: hit.formats)
        }
        do {
            let isbns = item.identifiers.isbn13.prefix(100).filter { $0.allSatisfy(\.isNumber) }
            if !isbns.isEmpty {
                let match = "identifiers : (" + isbns.map { "\"\($0)\"" }.joined(separator: " OR ") + ")"
                if let hit = try await index.search(match, limit: 1, offset: 0).first { return copy(hit) }
            }
            let title = MatchText.normalise(item.title)
            let names = Set(creators.compactMap(Self.familyName))
            guard !title.isEmpty, !names.isEmpty, let match = CalibreQuery.match(item.title) else { return nil }
            let hits = try await index.search(match, limit: 10, offset: 0)
            return hits.first { hit in
                MatchText.normalise(hit.title) == title && hit.authors.contains { Self.familyName($0).map(names.contains) ?? false }
            }.map(copy)
        } catch let error as CalibreError {
            throw error.seekError
        }
    }

    /// A name's last word, normalised ("J. R. R. Tolkien" → "tolkien"; "한강" → "한강").
    static func familyName(_ name: String) -> String? {
        name.split(whereSeparator: { $0 == " " || $0 == "," }).last.map { MatchText.normalise(String($0)) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    private func requireLibrary() throws -> CalibreIndex {
        guard let index else {
            throw SeekError(
                .missingKey(variable: Self.libraryVariable), provider: Self.id,
                detail: "export \(Self.libraryVariable)=/path/to/your/Calibre Library (the folder that holds metadata.db)")
        }
        return index
    }

    // MARK: - Mapping

    func item(_ hit: CalibreIndex.Hit, root: URL) -> Item {
        var identifiers = Identifiers(isbns: hit.isbns)
        identifiers.other = hit.other
        return Item(
            id: ItemID(provider: Self.id, value: String(hit.id)), kind: .book, title: hit.title, creators: hit.authors,
            year: hit.year, identifiers: identifiers, images: Self.cover(root: root, path: hit.path, stamp: hit.stamp),
            owned: OwnedCopy(id: ItemID(provider: Self.id, value: String(hit.id)), formats: hit.formats))
    }

    func detail(_ book: CalibreBook, comment: String?, rating: Int?, root: URL) -> ItemDetail {
        let id = ItemID(provider: Self.id, value: String(book.id))
        let item = Item(
            id: id, kind: .book, title: book.title, creators: book.authors, year: book.year, identifiers: book.identifierValues,
            images: Self.cover(root: root, path: book.path, stamp: book.lastModified),
            owned: OwnedCopy(id: id, formats: book.formats))
        var attributes: [String: String] = [:]
        if let series = book.series { attributes["series"] = book.seriesNumber.map { "\(series) #\($0)" } ?? series }
        if !book.languages.isEmpty { attributes["languages"] = book.languages.joined(separator: ", ") }
        if !book.formats.isEmpty { attributes["formats"] = book.formats.joined(separator: ", ") }
        if let rating, rating > 0 { attributes["rating"] = "\(SeekError.format(Double(rating) / 2))/5" }
        for (type, value) in book.identifiers where CalibreBook.schemes[type] == nil && !type.hasPrefix("isbn") {
            attributes["identifier \(type)"] = value
        }
        let description = comment.map(CommentText.plain).flatMap { $0.isEmpty ? nil : $0 }
        return ItemDetail(
            item: item, description: description, contributors: book.authors.map { Contributor(name: $0, role: "author") },
            subjects: book.tags, publishers: book.publisher.map { [$0] } ?? [], publishDate: book.publishDate,
            attributes: attributes)
    }

    /// The book's `cover.jpg`, when the file is there (`has_cover` can be stale). The URL carries the
    /// book's `last_modified`, so a new cover is a new image-cache entry.
    static func cover(root: URL, path: String, stamp: String) -> [ImageSize: ImageReference] {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else { return [:] }
        let file = root.appendingPathComponent(path, isDirectory: true).appendingPathComponent("cover.jpg")
        guard FileManager.default.fileExists(atPath: file.path) else { return [:] }
        var components = URLComponents(url: file, resolvingAgainstBaseURL: false)
        let version = stamp.filter(\.isNumber)
        if !version.isEmpty { components?.queryItems = [URLQueryItem(name: "v", value: version)] }
        guard let url = components?.url else { return [:] }
        return [.large: ImageReference(url: url, size: .large)]
    }
}
