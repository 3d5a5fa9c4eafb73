import Foundation
import SeekKit
import SeekCore

/// A provider declared in the config file (`"jsonProviders"`) or bundled in Seek as such a declaration
/// (`Bundled/*.json`): it fills URL and header templates, fetches JSON and reads results through JSON
/// paths. It takes part in fan-out, merging, paging and statuses like any provider written in Swift.
public struct JSONDeclaredProvider: SearchProvider {
    public let declaration: JSONProviderDeclaration
    public let descriptor: ProviderDescriptor
    /// The key variables' values that are set, by variable; the keys never live in the config file.
    private let keys: [String: String]
    private let searchURL: URLTemplate
    private let detailURL: URLTemplate?
    private let trendingURL: URLTemplate?
    private let client: ProviderClient
    private let gate: ConcurrencyGate?

    /// A provider for `declaration`: keys from the environment only, the base URL from `baseURLEnv`
    /// (or the config file's `providers.<id>.url`), else the declared default.
    public init(declaration: JSONProviderDeclaration, settings: Settings, transport: any HTTPTransport) throws {
        self.declaration = declaration
        var keys: [String: String] = [:]
        for variable in declaration.keyVariables {
            if let value = settings.environment[variable]?.trimmed(), !value.isEmpty { keys[variable] = value }
        }
        self.keys = keys
        if let fallback = declaration.baseURL {
            let variable = declaration.baseURLEnv
            let base = variable.flatMap { settings.string($0, provider: declaration.id, key: "url") }?.trimmed() ?? fallback
            guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host?.isEmpty == false, url.query == nil
            else {
                throw SeekError(
                    .configuration, provider: declaration.id,
                    detail: "\(variable ?? "baseURL") is not an http(s) URL without a query: \(base)")
            }
            func rebased(_ template: URLTemplate?, _ field: String) throws -> URLTemplate? {
                guard let template, template.text.hasPrefix(fallback.trimmingSlashes) else { return template }
                let path = String(template.text.dropFirst(fallback.trimmingSlashes.count))
                do {
                    return try URLTemplate(parsing: path, allowed: template.placeholders.union(["key"]), isURL: false).prefixed(by: base)
                } catch {
                    throw SeekError(.configuration, provider: declaration.id, detail: "\(field) under \(base): \(error.reason)")
                }
            }
            searchURL = try rebased(declaration.searchURL, "searchURL") ?? declaration.searchURL
            detailURL = try rebased(declaration.detailURL, "detailURL")
            trendingURL = try rebased(declaration.trendingURL, "trendingURL")
        } else {
            searchURL = declaration.searchURL
            detailURL = declaration.detailURL
            trendingURL = declaration.trendingURL
        }
        var capabilities: Set<ProviderCapability> = [.search]
        if declaration.detailURL != nil { capabilities.insert(.detail) }
        if declaration.trendingURL != nil { capabilities.insert(.trending) }
        if declaration.fields[.image] != nil || declaration.fields[.thumbnail] != nil { capabilities.insert(.image) }
        let placeholders = declaration.searchURL.placeholders
        let paging: PagingStyle = placeholders.contains("offset") || placeholders.contains("start") ? .offset : .page
        descriptor = ProviderDescriptor(
            id: declaration.id, name: declaration.name, kinds: [declaration.kind], capabilities: capabilities,
            paging: paging, needsKey: declaration.needsKey, defaultTimeout: declaration.timeout,
            weight: declaration.weight, shortcuts: declaration.bangs)
        client = ProviderClient(
            provider: declaration.id, transport: transport, secrets: keys.values.sorted(),
            timeout: max(declaration.timeout, .seconds(30)))
        // `SEEK_<ID>_CONCURRENCY` (or `providers.<id>.concurrency`) overrides the declared bound; `off` lifts it.
        let variable = "SEEK_\(declaration.id.uppercased().replacingOccurrences(of: "-", with: "_"))_CONCURRENCY"
        let concurrency: Int?
        if let text = settings.string(variable, provider: declaration.id, key: "concurrency")?.trimmed() {
            if ["off", "none", "0"].contains(text.lowercased()) {
                concurrency = nil
            } else if let number = Int(text), (1...1000).contains(number) {
                concurrency = number
            } else {
                throw SeekError(.configuration, provider: declaration.id, detail: "\(variable) must be a whole number from 1 to 1000, or off (got '\(text)')")
            }
        } else {
            concurrency = declaration.concurrency
        }
        gate = concurrency.map { ConcurrencyGate(limit: $0) }
    }

    /// Factories for every provider the config file declares, validated now (see `JSONProviderDeclaration.all`).
    public static func factories(settings: Settings, reservedIDs: Set<String> = []) throws -> [ProviderFactory] {
        try JSONProviderDeclaration.all(in: settings, reservedIDs: reservedIDs).map { factory(for: $0) }
    }

    /// How the composition root builds the provider `declaration` describes, with the policy it declares
    /// (rate limit) and, given the recordings, its demo.
    public static func factory(
        for declaration: JSONProviderDeclaration, recording: (@Sendable (String) -> String?)? = nil
    ) -> ProviderFactory {
        ProviderFactory(
            id: declaration.id, defaultRateLimit: declaration.rateLimit,
            demo: recording.flatMap { DeclaredDemo.demo(for: declaration, recording: $0) }
        ) { environment in
            try JSONDeclaredProvider(declaration: declaration, settings: environment.settings, transport: environment.transport)
        }
    }

    /// The key variables this provider needs and has not got.
    public var missingKeys: [String] { declaration.requiredKeys.filter { keys[$0] == nil } }

    public var isConfigured: Bool { missingKeys.isEmpty }

    /// Every key variable, saying where it goes, whether it is required and whether it is set; never a value.
    public var requirements: [ProviderRequirement] {
        declaration.keyVariables.map { variable in
            let placeholder = "key:" + variable
            let header = declaration.headers.first { header in
                header.value.placeholders.contains(placeholder)
                    || (header.value.placeholders.contains("key") && declaration.keyEnv == variable)
            }
            return ProviderRequirement(
                variable: variable, purpose: header.map { "API key, sent in the \($0.name) header" } ?? "API key",
                required: !declaration.optionalKeys.contains(variable), isSet: keys[variable] != nil)
        }
    }

    /// The search template as written under the base URL in use: placeholders, never the key.
    public var endpoint: String { searchURL.text }

    public var secrets: [String] { client.secrets }

    // MARK: Calls

    public func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        let query = request.query.trimmed()
        guard !query.isEmpty else { throw failure(.invalidInput, "the search text is empty") }
        let template = searchURL
        let offsetPaging = descriptor.paging == .offset
        let limit = min(request.limit, declaration.maxLimit ?? request.limit)
        // The cursor is the next offset or page number, whichever the template pages by.
        // Both are bounded like the request's own: a forged cursor cannot make them overflow.
        let cursorPage = request.cursor.flatMap { Int($0) }.map { min(max(1, $0), SearchRequest.maxPage) }
        let page = offsetPaging ? request.offset / request.limit + 1 : cursorPage ?? request.page
        let offset = offsetPaging
            ? request.offset : SearchRequest.checkedOffset(page: page, limit: request.limit) ?? SearchRequest.maxOffset
        let url = try expand(template, "searchURL", [
            "query": query, "page": String(page), "offset": String(offset), "start": String(offset + 1),
            "limit": String(limit),
        ])
        guard let (root, response) = try await fetch(url, apiError: .invalidInput) else { return SearchPage(items: [], total: nil, next: nil) }
        let total = declaration.totalPath.flatMap { $0.resolve(in: root)?.firstInt }
        let elements = try list(in: root, response: response, total: total)
        let items = Self.unique(kept(elements).compactMap { item(from: $0, base: url) })
        let next: String?
        let pages = template.placeholders
        if !pages.contains("offset"), !pages.contains("start"), !pages.contains("page") {
            next = nil  // The template cannot ask for another page.
        } else if offsetPaging {
            let short = total == nil && elements.count < limit
            next = short || elements.isEmpty ? nil : SearchPage.nextOffset(after: request, received: elements.count, total: total)
        } else if SearchRequest.checkedOffset(page: page + 1, limit: request.limit) == nil {
            next = nil  // As deep as seek pages.
        } else {
            next = Self.nextPage(page, received: elements.count, total: total, pageSize: declaration.pageSize)
        }
        return SearchPage(items: items, total: total, next: next)
    }

    public func trending(limit: Int, options: CallOptions) async throws -> SearchPage {
        guard let template = trendingURL else {
            throw SeekError(.unsupported(capability: "trending"), provider: descriptor.id)
        }
        let url = try expand(template, "trendingURL", ["limit": String(min(max(1, limit), declaration.maxLimit ?? limit))])
        guard let (root, response) = try await fetch(url, apiError: .invalidInput) else { return SearchPage(items: [], total: nil, next: nil) }
        let total = declaration.totalPath.flatMap { $0.resolve(in: root)?.firstInt }
        let items = Self.unique(kept(try list(in: root, response: response, total: total)).compactMap { item(from: $0, base: url) })
        return SearchPage(items: Array(items.prefix(max(1, limit))), total: total)
    }

    public func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        guard let template = detailURL else {
            throw SeekError(.unsupported(capability: "detail"), provider: descriptor.id)
        }
        guard id.provider == descriptor.id else { throw failure(.invalidInput, "\(id) is not an id of \(descriptor.id)") }
        let url = try expand(template, "detailURL", ["id": id.value])
        guard let (root, response) = try await fetch(url, apiError: .notFound) else {
            throw failure(.notFound, "no record of \(id)")
        }
        let found = declaration.detailPath.resolve(in: root)
        let record: JSONValue
        if let list = found?.arrayValue {
            // A look-up by search (Kakao's and Naver's ISBN queries): the element whose id is the one asked for.
            guard let match = list.first(where: { text(.id, in: $0) == id.value }) else {
                throw failure(.notFound, "the answer holds no record of \(id)")
            }
            record = match
        } else if let found, found.objectValue != nil {
            record = found
        } else {
            throw failure(.undecodable, client.body("no record at \"\(declaration.detailPath)\"", response))
        }
        // A record that does not repeat its id is taken as the one asked for; one that names another id
        // keeps it, and the engine refuses it as not the record asked for.
        let item = item(from: record, base: url)
            ?? Item(id: id, kind: declaration.kind, title: text(.title, in: record) ?? "(untitled)")
        var attributes: [String: String] = [:]
        for (name, spec) in declaration.attributes {
            if spec.filter == nil, spec.valuePath == nil, let object = spec.path.resolve(in: record)?.objectValue {
                for (key, value) in object {
                    if let text = value.stringValue?.trimmed(), !text.isEmpty { attributes["\(name).\(key)"] = text }
                }
            } else if let value = values(spec, in: record).first {
                attributes[name] = value
            }
        }
        let languages = all(.language, in: record)
        if !languages.isEmpty { attributes["language"] = languages.joined(separator: ", ") }
        let contributors = item.creators.map { Contributor(name: $0) }
            + all(.translators, in: record).map { Contributor(name: $0, role: "translator") }
        return ItemDetail(
            item: item, description: text(.description, in: record),
            contributors: contributors,
            subjects: all(.subjects, in: record), publishers: all(.publishers, in: record),
            publishDate: text(.date, in: record), pageCount: number(.pages, in: record).flatMap { $0 > 0 ? $0 : nil },
            attributes: attributes)
    }

    // MARK: Plumbing

    /// `items` without the later ones of an id already given (Kakao answers one ISBN on several documents).
    static func unique(_ items: [Item]) -> [Item] {
        var seen: Set<ItemID> = []
        return items.filter { seen.insert($0.id).inserted }
    }

    /// The page after `page`, or nil when this one was empty or the total says it was the last.
    static func nextPage(_ page: Int, received: Int, total: Int?, pageSize: Int?) -> String? {
        guard received > 0 else { return nil }
        if let pageSize, received < pageSize { return nil }  // A short page is the last one.
        if let total {
            return page * (pageSize ?? received) < total ? String(page + 1) : nil
        }
        return String(page + 1)
    }

    /// The key variables `template` and the headers need that are not set, as `.missingKey` naming them all.
    private func requireKeys(for template: URLTemplate) throws {
        var used = Set(declaration.headers.flatMap(\.value.placeholders)).union(template.placeholders)
        if used.remove("key") != nil, let keyEnv = declaration.keyEnv { used.insert("key:" + keyEnv) }
        let missing = declaration.requiredKeys.filter { used.contains("key:" + $0) && keys[$0] == nil }
        guard !missing.isEmpty else { return }
        let exports = missing.map { "export \($0)=…" }.joined(separator: "; ")
        throw SeekError(
            .missingKey(variable: missing.joined(separator: " and ")), provider: descriptor.id,
            detail: "\(exports) (\(descriptor.name) needs \(missing.count == 1 ? "it" : "them"))")
    }

    /// The values of the key placeholders: `{key}` and `{key:VARIABLE}`.
    private var keyValues: [String: String] {
        var values: [String: String] = [:]
        for (variable, value) in keys { values["key:" + variable] = value }
        if let keyEnv = declaration.keyEnv, let value = keys[keyEnv] { values["key"] = value }
        return values
    }

    private func expand(_ template: URLTemplate, _ field: String, _ values: [String: String]) throws -> URL {
        try requireKeys(for: template)
        guard let url = template.expand(values.merging(keyValues) { first, _ in first }) else {
            throw failure(.invalidInput, "\(field) did not make a URL from these values")
        }
        return url
    }

    /// The declared headers with their keys filled in; one that needs an optional key that is unset is left out.
    private var headers: [(String, String)] {
        let values = keyValues
        var headers: [(String, String)] = [("Accept", "application/json")]
        for header in declaration.headers where header.value.placeholders.allSatisfy({ values[$0] != nil }) {
            headers.append((header.name, header.value.render(values)))
        }
        return headers
    }

    /// GETs and parses JSON. The declared error rules read the status and the body first; a non-2xx status
    /// they do not match is the kit's typed error; an error the API reports in a 200 body (at `errorPath`)
    /// becomes `apiError`. Nil when a rule says the answer means "no results" (a page past the end).
    private func fetch(_ url: URL, apiError: SeekError.Kind) async throws -> (JSONValue, HTTPResponse)? {
        let response: HTTPResponse
        if let gate {
            response = try await gate.run { try await client.fetch(url, headers: headers) }
        } else {
            response = try await client.fetch(url, headers: headers)
        }
        let success = (200..<300).contains(response.status)
        let parsed = success ? nil : try? client.decodeJSON(from: response)
        if let rule = declaration.errorRules.first(where: { matches($0, response, parsed) }) {
            if success || parsed != nil || rule.test == nil {
                let body = success ? try client.decodeJSON(from: response) : parsed ?? .null
                if rule.outcome == .empty { return nil }
                throw ruleError(rule, response: response, body: body, apiError: apiError)
            }
        }
        try client.check(response, url: url)
        let root = try client.decode(JSONValue.self, from: response)
        if let rule = declaration.errorRules.first(where: { $0.test != nil && matches($0, response, root) }) {
            if rule.outcome == .empty { return nil }
            throw ruleError(rule, response: response, body: root, apiError: apiError)
        }
        if let path = declaration.errorPath, let reported = path.resolve(in: root), reported != .null {
            let text = reported.firstString ?? response.snippet(redacting: client.secrets)
            if !declaration.okValues.contains(text) {
                throw failure(apiError, "the API reported an error: \(text)")
            }
        }
        return (root, response)
    }

    private func matches(_ rule: JSONProviderDeclaration.ErrorRule, _ response: HTTPResponse, _ body: JSONValue?) -> Bool {
        if !rule.statuses.isEmpty, !rule.statuses.contains(response.status) { return false }
        guard let test = rule.test else { return true }
        guard let body else { return false }
        return test.matches(body)
    }

    private func ruleError(
        _ rule: JSONProviderDeclaration.ErrorRule, response: HTTPResponse, body: JSONValue, apiError: SeekError.Kind
    ) -> SeekError {
        let said = rule.message.flatMap { $0.resolve(in: body)?.firstString }.map { UntrustedText.line($0) }
        var words = said.map { "the API said: \($0)" } ?? client.body("HTTP \(response.status)", response)
        let kind: SeekError.Kind
        var retryAfter = response.retryAfterDate()
        switch rule.outcome {
        case .unauthorized: kind = .unauthorized
        case .rateLimited:
            let now = Date()
            if let reset = rule.reset(after: now) {
                // A spent daily quota: nothing passes before it resets, so no retry before then.
                retryAfter = reset
                kind = .rateLimited(retryAfterSeconds: max(1, reset.timeIntervalSince(now).rounded(.up)))
                words += "; the quota resets at \(reset.formatted(.iso8601))"
            } else {
                kind = .rateLimited(retryAfterSeconds: response.retryAfter())
            }
        case .notFound, .empty: kind = .notFound
        case .invalidInput: kind = .invalidInput
        case .error: kind = (200..<300).contains(response.status) ? apiError : .httpStatus(response.status)
        }
        return client.scrub(SeekError(kind, provider: descriptor.id, detail: words, retryAfter: retryAfter))
    }

    /// The result list at `itemsPath`; missing is an empty list only when the total says zero.
    private func list(in root: JSONValue, response: HTTPResponse, total: Int?) throws -> [JSONValue] {
        let value = declaration.itemsPath.resolve(in: root)
        if let elements = value?.arrayValue { return elements }
        if total == 0, value == nil || value == .null { return [] }
        let place = declaration.itemsPath.segments.isEmpty ? "the top level" : "\"\(declaration.itemsPath)\""
        throw failure(.undecodable, client.body("expected a list at \(place)", response))
    }

    /// The results the declared filter keeps.
    private func kept(_ elements: [JSONValue]) -> [JSONValue] {
        guard let filter = declaration.itemFilter else { return elements }
        return elements.filter(filter.matches)
    }

    /// One result as an item; nil when it has no id.
    private func item(from element: JSONValue, base: URL) -> Item? {
        guard let value = text(.id, in: element) else { return nil }
        let identifiers = Self.identifiers(isbns: all(.isbn, in: element))
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

    /// The identifiers of an item's ISBN values (each read as catalogue text). An ISBN-10 given beside a
    /// 979 ISBN-13 that is not its 978 form (Kakao's "1160501300 9791160501308": a 979 book has no ISBN-10,
    /// those ten digits are the source's own) is kept as the source's ISBN-10 without the 978 ISBN-13 it
    /// would convert to, which is another book's.
    static func identifiers(isbns values: [String]) -> Identifiers {
        var identifiers = Identifiers()
        let thirteens = values.map(ISBN.clean).filter(ISBN.isValid13)
        let has979 = thirteens.contains { $0.hasPrefix("979") }
        var sourceTens: [String] = []
        for value in values {
            let cleaned = ISBN.clean(value)
            if has979, ISBN.isValid10(cleaned), let derived = ISBN.isbn13(from: cleaned), !thirteens.contains(derived) {
                if !sourceTens.contains(cleaned) { sourceTens.append(cleaned) }
                continue
            }
            identifiers.add(isbnsIn: value)
        }
        guard !sourceTens.isEmpty, identifiers.other.isEmpty else { return identifiers }
        // `Identifiers` derives an ISBN-13 from every ISBN-10 it is given; its coded form takes them as they are.
        // Every value here is digits and X, so the JSON needs no escaping.
        func list(_ values: [String]) -> String { values.map { "\"\($0)\"" }.joined(separator: ",") }
        let text = #"{"isbn13":[\#(list(identifiers.isbn13))],"isbn10":[\#(list(identifiers.isbn10 + sourceTens))],"other":{}}"#
        return (try? JSONDecoder().decode(Identifiers.self, from: Data(text.utf8))) ?? identifiers
    }

    /// A field's values: strings (numbers converted), filtered, split, transformed, trimmed, without blanks
    /// or repeats; the first alternative that gives any when this spec gives none.
    private func values(_ spec: JSONProviderDeclaration.FieldSpec, in element: JSONValue) -> [String] {
        let found = ownValues(spec, in: element)
        if !found.isEmpty { return found }
        for alternative in spec.alternatives {
            let values = ownValues(alternative, in: element)
            if !values.isEmpty { return values }
        }
        return []
    }

    private func ownValues(_ spec: JSONProviderDeclaration.FieldSpec, in element: JSONValue) -> [String] {
        guard let value = spec.path.resolve(in: element) else { return [] }
        var sources = [value]
        if spec.filter != nil || spec.valuePath != nil {
            var elements = value.arrayValue ?? [value]
            if let filter = spec.filter { elements = elements.filter(filter.matches) }
            if let valuePath = spec.valuePath { elements = elements.compactMap { valuePath.resolve(in: $0) } }
            sources = elements
        }
        let raw = sources.flatMap(\.allStrings)
        let pieces = spec.separator.map { separator in raw.flatMap { $0.components(separatedBy: separator) } } ?? raw
        var result: [String] = []
        for piece in pieces {
            var text = spec.stripMarkup ? DeclaredText.strippingMarkup(piece) : piece
            if spec.after != nil || spec.before != nil {
                guard let cut = DeclaredText.cut(text, after: spec.after, before: spec.before) else { continue }
                text = cut
            }
            text = text.trimmed()
            if spec.names == .lastFirst { text = DeclaredText.firstLast(text) }
            if let form = spec.isbn {
                let cleaned = ISBN.clean(text)
                let valid: Bool
                switch form {
                case .isbn13: valid = ISBN.isValid13(cleaned)
                case .isbn10: valid = ISBN.isValid10(cleaned)
                case .any: valid = ISBN.isValid13(cleaned) || ISBN.isValid10(cleaned)
                }
                guard valid else { continue }
                text = cleaned
            }
            if let format = spec.format, !text.isEmpty { text = format.replacingOccurrences(of: "{value}", with: text) }
            if !text.isEmpty, !result.contains(text) { result.append(text) }
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

    /// The year: a number, or the first year in a date string ("March 2015", "2015-03-01", Naver's "20150301").
    private func year(in element: JSONValue) -> Int? {
        guard let spec = declaration.fields[.year] else { return nil }
        if spec.filter == nil, spec.valuePath == nil, spec.alternatives.isEmpty, let value = spec.path.resolve(in: element),
           case .number = value, let year = value.firstInt {
            return year
        }
        for text in values(spec, in: element) {
            if let year = Self.year(in: text) { return year }
        }
        return nil
    }

    /// The first run of four digits in `text`, or the first four of a run of eight (yyyyMMdd) or six (yyyyMM).
    static func year(in text: String) -> Int? {
        var digits = ""
        for character in text + " " {
            if character.isASCII, character.isNumber { digits.append(character); continue }
            if [4, 6, 8].contains(digits.count), let year = Int(digits.prefix(4)) { return year }
            digits = ""
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
        for key in keys.values where url.absoluteString.contains(key) || url.absoluteString.contains(URLTemplate.encode(key)) {
            return nil
        }
        return url
    }

    private func failure(_ kind: SeekError.Kind, _ detail: String) -> SeekError {
        client.scrub(SeekError(kind, provider: descriptor.id, detail: detail))
    }
}

extension String {
    /// Without trailing slashes.
    var trimmingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

/// At most `limit` calls of one provider in flight at once; the others wait their turn, in order.
final class ConcurrencyGate: Sendable {
    private let state: Locked<State>

    private struct State {
        var available: Int
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    init(limit: Int) {
        state = Locked(State(available: max(1, limit)))
    }

    func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await work()
    }

    private func acquire() async throws {
        let id: UInt64 = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Bool = state.withLock { state in
                    if Task.isCancelled { return false }
                    if state.available > 0 {
                        state.available -= 1
                        return true
                    }
                    state.waiting.append((id, continuation))
                    return false
                }
                if resume {
                    continuation.resume()
                } else if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiting.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
