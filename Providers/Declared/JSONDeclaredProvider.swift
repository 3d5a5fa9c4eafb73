import Foundation
import SeekKit
import SeekCore

/// A provider declared in the config file (`"jsonProviders"`): it fills URL templates, fetches JSON
/// and reads results through JSON paths. It takes part in fan-out, merging, paging and statuses like
/// any provider written in Swift.
public struct JSONDeclaredProvider: SearchProvider {
    public let declaration: JSONProviderDeclaration
    public let descriptor: ProviderDescriptor
    /// The value of `{key}`, read from the environment variable `keyEnv` names; nil when unset.
    private let key: String?
    private let client: ProviderClient

    /// A provider for `declaration`; `environment` supplies the key variable (never the config file).
    public init(declaration: JSONProviderDeclaration, environment: [String: String], transport: any HTTPTransport) {
        self.declaration = declaration
        let key = declaration.keyEnv.flatMap { environment[$0] }?.trimmed()
        self.key = (key?.isEmpty ?? true) ? nil : key
        var capabilities: Set<ProviderCapability> = [.search]
        if declaration.detailURL != nil { capabilities.insert(.detail) }
        if declaration.trendingURL != nil { capabilities.insert(.trending) }
        if declaration.fields[.image] != nil || declaration.fields[.thumbnail] != nil { capabilities.insert(.image) }
        let paging: PagingStyle = declaration.searchURL.placeholders.contains("offset") ? .offset : .page
        descriptor = ProviderDescriptor(
            id: declaration.id, name: declaration.name, kinds: [declaration.kind], capabilities: capabilities,
            paging: paging, needsKey: declaration.needsKey, defaultTimeout: declaration.timeout,
            weight: declaration.weight)
        client = ProviderClient(
            provider: declaration.id, transport: transport, secrets: self.key.map { [$0] } ?? [],
            timeout: max(declaration.timeout, .seconds(30)))
    }

    /// Factories for every provider the config file declares, validated now (see `JSONProviderDeclaration.all`).
    public static func factories(settings: Settings, reservedIDs: Set<String> = []) throws -> [ProviderFactory] {
        try JSONProviderDeclaration.all(in: settings, reservedIDs: reservedIDs).map { declaration in
            ProviderFactory(id: declaration.id) { environment in
                JSONDeclaredProvider(
                    declaration: declaration, environment: environment.settings.environment,
                    transport: environment.transport)
            }
        }
    }

    public var isConfigured: Bool { !declaration.needsKey || key != nil }

    /// The search template as written: placeholders, never the key.
    public var endpoint: String { declaration.searchURL.text }

    public var secrets: [String] { client.secrets }

    // MARK: Calls

    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let query = request.query.trimmed()
        guard !query.isEmpty else { throw failure(.invalidInput, "the search text is empty") }
        let template = declaration.searchURL
        let offsetPaging = descriptor.paging == .offset
        // The cursor is the next offset or page number, whichever the template pages by.
        // Both are bounded like the request's own: a forged cursor cannot make them overflow.
        let cursorPage = request.cursor.flatMap { Int($0) }.map { min(max(1, $0), SearchRequest.maxPage) }
        let page = offsetPaging ? request.offset / request.limit + 1 : cursorPage ?? request.page
        let offset = offsetPaging
            ? request.offset : SearchRequest.checkedOffset(page: page, limit: request.limit) ?? SearchRequest.maxOffset
        let url = try expand(template, "searchURL", [
            "query": query, "page": String(page), "offset": String(offset), "limit": String(request.limit),
        ])
        let (root, response) = try await fetch(url, apiError: .invalidInput)
        let total = declaration.totalPath.flatMap { $0.resolve(in: root)?.firstInt }
        let elements = try list(in: root, response: response, total: total)
        let items = elements.compactMap { item(from: $0, base: url) }
        let next: String?
        if !template.placeholders.contains("offset"), !template.placeholders.contains("page") {
            next = nil  // The template cannot ask for another page.
        } else if offsetPaging {
            let short = total == nil && elements.count < request.limit
            next = short ? nil : SearchPage.nextOffset(after: request, received: elements.count, total: total)
        } else if SearchRequest.checkedOffset(page: page + 1, limit: request.limit) == nil {
            next = nil  // As deep as seek pages.
        } else {
            next = Self.nextPage(page, received: elements.count, total: total, pageSize: declaration.pageSize)
        }
        return SearchPage(items: items, total: total, next: next)
    }

    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        guard let template = declaration.trendingURL else {
            throw SeekError(.unsupported(capability: "trending"), provider: descriptor.id)
        }
        let url = try expand(template, "trendingURL", ["limit": String(max(1, limit))])
        let (root, response) = try await fetch(url, apiError: .invalidInput)
        let total = declaration.totalPath.flatMap { $0.resolve(in: root)?.firstInt }
        let items = try list(in: root, response: response, total: total).compactMap { item(from: $0, base: url) }
        return SearchPage(items: Array(items.prefix(max(1, limit))), total: total)
    }

    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        guard let template = declaration.detailURL else {
            throw SeekError(.unsupported(capability: "detail"), provider: descriptor.id)
        }
        guard id.provider == descriptor.id else { throw failure(.invalidInput, "\(id) is not an id of \(descriptor.id)") }
        let url = try expand(template, "detailURL", ["id": id.value])
        let (root, response) = try await fetch(url, apiError: .notFound)
        guard let record = declaration.detailPath.resolve(in: root), record.objectValue != nil else {
            throw failure(.undecodable, client.body("no record at \"\(declaration.detailPath)\"", response))
        }
        // A record that does not repeat its id is taken as the one asked for; one that names another id
        // keeps it, and the engine refuses it as not the record asked for.
        let item = item(from: record, base: url)
            ?? Item(id: id, kind: declaration.kind, title: text(.title, in: record) ?? "(untitled)")
        var attributes: [String: String] = [:]
        for (name, spec) in declaration.attributes {
            attributes[name] = values(spec, in: record).first
        }
        return ItemDetail(
            item: item, description: text(.description, in: record),
            contributors: item.creators.map { Contributor(name: $0) },
            subjects: all(.subjects, in: record), publishers: all(.publishers, in: record),
            publishDate: text(.date, in: record), pageCount: number(.pages, in: record).flatMap { $0 > 0 ? $0 : nil },
            attributes: attributes)
    }

    // MARK: Plumbing

    /// The page after `page`, or nil when this one was empty or the total says it was the last.
    static func nextPage(_ page: Int, received: Int, total: Int?, pageSize: Int?) -> String? {
        guard received > 0 else { return nil }
        if let pageSize, received < pageSize { return nil }  // A short page is the last one.
        if let total {
            return page * (pageSize ?? received) < total ? String(page + 1) : nil
        }
        return String(page + 1)
    }

    private func expand(_ template: URLTemplate, _ field: String, _ values: [String: String]) throws -> URL {
        var values = values
        if template.placeholders.contains("key") {
            guard let key else {
                let variable = declaration.keyEnv ?? "keyEnv"
                throw SeekError(
                    .missingKey(variable: variable), provider: descriptor.id,
                    detail: "export \(variable)=… (the config file's keyEnv for \(descriptor.id))")
            }
            values["key"] = key
        }
        guard let url = template.expand(values) else {
            throw failure(.invalidInput, "\(field) did not make a URL from these values")
        }
        return url
    }

    /// GETs and parses JSON; an error the API reports in a 200 body (at `errorPath`) becomes `apiError`.
    private func fetch(_ url: URL, apiError: SeekError.Kind) async throws -> (JSONValue, HTTPResponse) {
        let response = try await client.get(url)
        let root = try client.decode(JSONValue.self, from: response)
        if let path = declaration.errorPath, let reported = path.resolve(in: root), reported != .null {
            let text = reported.firstString ?? response.snippet(redacting: client.secrets)
            if !declaration.okValues.contains(text) {
                throw failure(apiError, "the API reported an error: \(text)")
            }
        }
        return (root, response)
    }

    /// The result list at `itemsPath`; missing is an empty list only when the total says zero.
    private func list(in root: JSONValue, response: HTTPResponse, total: Int?) throws -> [JSONValue] {
        let value = declaration.itemsPath.resolve(in: root)
        if let elements = value?.arrayValue { return elements }
        if total == 0, value == nil || value == .null { return [] }
        let place = declaration.itemsPath.segments.isEmpty ? "the top level" : "\"\(declaration.itemsPath)\""
        throw failure(.undecodable, client.body("expected a list at \(place)", response))
    }

    /// One result as an item; nil when it has no id.
    private func item(from element: JSONValue, base: URL) -> Item? {
        guard let value = text(.id, in: element) else { return nil }
        var identifiers = Identifiers()
        for isbn in all(.isbn, in: element) { identifiers.add(isbnsIn: isbn) }
        var images: [ImageSize: ImageReference] = [:]
        if let url = link(.thumbnail, in: element, base: base) { images[.small] = ImageReference(url: url, size: .small) }
        if let url = link(.image, in: element, base: base) {
            images[declaration.imageSize] = ImageReference(url: url, size: declaration.imageSize)
        }
        return Item(
            id: ItemID(provider: descriptor.id, value: value), kind: declaration.kind,
            title: text(.title, in: element) ?? "(untitled)", subtitle: text(.subtitle, in: element),
            creators: all(.creators, in: element), year: year(in: element), identifiers: identifiers,
            images: images, url: link(.url, in: element, base: base))
    }

    /// A field's values: strings (numbers converted), split by its separator, trimmed, without blanks or repeats.
    private func values(_ spec: JSONProviderDeclaration.FieldSpec, in element: JSONValue) -> [String] {
        let raw = spec.path.resolve(in: element)?.allStrings ?? []
        let pieces = spec.separator.map { separator in raw.flatMap { $0.components(separatedBy: separator) } } ?? raw
        var result: [String] = []
        for piece in pieces {
            let trimmed = piece.trimmed()
            if !trimmed.isEmpty, !result.contains(trimmed) { result.append(trimmed) }
        }
        return result
    }

    private func all(_ field: JSONProviderDeclaration.Field, in element: JSONValue) -> [String] {
        declaration.fields[field].map { values($0, in: element) } ?? []
    }

    private func text(_ field: JSONProviderDeclaration.Field, in element: JSONValue) -> String? {
        all(field, in: element).first
    }

    private func number(_ field: JSONProviderDeclaration.Field, in element: JSONValue) -> Int? {
        guard let spec = declaration.fields[field] else { return nil }
        return spec.path.resolve(in: element)?.firstInt ?? text(field, in: element).flatMap { Int($0) }
    }

    /// The year: a number, or the first four-digit run in a date string ("March 2015", "2015-03-01").
    private func year(in element: JSONValue) -> Int? {
        guard let spec = declaration.fields[.year], let value = spec.path.resolve(in: element) else { return nil }
        if case .number = value, let year = value.firstInt { return year }
        for text in value.allStrings {
            var digits = ""
            for character in text + " " {
                if character.isASCII, character.isNumber { digits.append(character); continue }
                if digits.count == 4, let year = Int(digits) { return year }
                digits = ""
            }
        }
        return nil
    }

    /// An absolute http(s) URL from a field, resolving a relative one against the request's URL
    /// (without its query, which may hold the key).
    private func link(_ field: JSONProviderDeclaration.Field, in element: JSONValue, base: URL) -> URL? {
        var origin = URLComponents(url: base, resolvingAgainstBaseURL: false)
        origin?.query = nil
        guard let text = self.text(field, in: element),
              let url = URL(string: text, relativeTo: origin?.url ?? base)?.absoluteURL,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else { return nil }
        // A relative link resolved against a path that holds the key would print the key.
        if let key, url.absoluteString.contains(key) || url.absoluteString.contains(URLTemplate.encode(key)) { return nil }
        return url
    }

    private func failure(_ kind: SeekError.Kind, _ detail: String) -> SeekError {
        client.scrub(SeekError(kind, provider: descriptor.id, detail: detail))
    }
}
