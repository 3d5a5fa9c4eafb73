import Foundation
import SeekKit
import SeekCore

/// One entry of the config file's `"jsonProviders"` list: a provider described by URL templates and
/// JSON paths instead of Swift. Parsing validates everything, so a mistake is a configuration error
/// naming the provider and the field at start-up, never a crash or a silently missing provider.
/// The declarations bundled in Seek (`Bundled/*.json`: Kakao, Naver, Project Gutenberg) are written
/// in this same format; docs/declared-providers.md describes every key.
public struct JSONProviderDeclaration: Sendable, Hashable {
    /// What a declared provider can map from a result or a detail record.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case id, title, subtitle, creators, translators, year, isbn, image, thumbnail, url
        case description, publishers, date, pages, subjects, language
    }

    /// How a field's names are written: as they should read, or "Last, First" (turned round).
    public enum NameOrder: String, Sendable, Hashable {
        case asWritten = "as written"
        case lastFirst = "last, first"
    }

    /// Which ISBNs a field keeps (`"isbn": "13"`): the values that are valid ISBN-13s, ISBN-10s, or either.
    public enum ISBNForm: String, Sendable, Hashable {
        case isbn13 = "13", isbn10 = "10", any
    }

    /// A test of one JSON value: the value at `path` (from the element tested) is one of `equals`, or,
    /// without `equals`, is present and neither null nor empty.
    public struct ValueTest: Sendable, Hashable {
        public let path: JSONPath
        public let equals: [String]?

        public init(path: JSONPath, equals: [String]?) {
            self.path = path
            self.equals = equals
        }

        public func matches(_ element: JSONValue) -> Bool {
            guard let value = path.resolve(in: element), value != .null else { return false }
            let texts = value.allStrings
            guard let equals else { return texts.contains { !$0.isEmpty } || value.objectValue != nil }
            return texts.contains { equals.contains($0) }
        }
    }

    /// Where a field's value lives and how to read it. A string in the declaration is a bare path; an
    /// object adds the rest; a list of them is tried in order until one gives a value.
    public struct FieldSpec: Sendable, Hashable {
        public let path: JSONPath
        /// Splits a string into several values (`"authors": "Mark Lutz, David Ascher"` with `","`).
        public let separator: String?
        /// Keeps only the elements of the list at `path` that pass (`"type"` is `"ISBN_13"`)…
        public let filter: ValueTest?
        /// …and reads this path from each of them (`"identifier"`).
        public let valuePath: JSONPath?
        /// Keeps the text after the first `after` and before the next `before` (`bookId=` … `&`).
        public let after: String?
        public let before: String?
        /// Removes HTML tags and decodes character references (`<b>`, `&amp;`, `&#x0D;`).
        public let stripMarkup: Bool
        public let names: NameOrder
        /// Keeps only the values that are ISBNs of this form.
        public let isbn: ISBNForm?
        /// Writes each value into this text at `{value}` (`https://www.gutenberg.org/ebooks/{value}`).
        public let format: String?
        /// Tried in order when this spec gives no value.
        public let alternatives: [FieldSpec]

        public init(
            path: JSONPath, separator: String? = nil, filter: ValueTest? = nil, valuePath: JSONPath? = nil,
            after: String? = nil, before: String? = nil, stripMarkup: Bool = false, names: NameOrder = .asWritten,
            isbn: ISBNForm? = nil, format: String? = nil, alternatives: [FieldSpec] = []
        ) {
            self.path = path
            self.separator = separator
            self.filter = filter
            self.valuePath = valuePath
            self.after = after
            self.before = before
            self.stripMarkup = stripMarkup
            self.names = names
            self.isbn = isbn
            self.format = format
            self.alternatives = alternatives
        }
    }

    /// An error the API reports, read from its status and body rather than its status alone (a daily quota
    /// answered 400, an error answered 200, a page past the end answered 404).
    public struct ErrorRule: Sendable, Hashable {
        public enum Outcome: String, Sendable, Hashable, CaseIterable {
            case unauthorized, rateLimited, notFound, invalidInput, error, empty
        }

        /// The statuses it applies to; empty for any.
        public let statuses: [Int]
        public let test: ValueTest?
        public let outcome: Outcome
        /// Where the API's own words are, for the message.
        public let message: JSONPath?
        /// For a spent daily quota: the time of day it resets, as minutes after midnight UTC (`"00:00+09:00"`
        /// is 900); the call is then `rateLimited` until the next such moment, not retried before.
        public let resetsAt: Int?

        /// The next reset after `now`.
        public func reset(after now: Date) -> Date? {
            guard let resetsAt else { return nil }
            let day = 86_400.0
            let seconds = now.timeIntervalSince1970
            let start = (seconds / day).rounded(.down) * day + Double(resetsAt * 60)
            return Date(timeIntervalSince1970: start > seconds ? start : start + day)
        }

        /// "HH:MM" with an optional zone ("+09:00", "-08:00", "Z") as minutes after midnight UTC.
        static func minutes(_ text: String) -> Int? {
            let utf8 = Array(text.utf8)
            func number(_ range: Range<Int>) -> Int? {
                guard range.upperBound <= utf8.count, range.allSatisfy({ (0x30...0x39).contains(utf8[$0]) }) else { return nil }
                return Int(String(decoding: utf8[range], as: UTF8.self))
            }
            guard utf8.count >= 5, utf8[2] == UInt8(ascii: ":"), let hours = number(0..<2), let minutes = number(3..<5),
                  hours < 24, minutes < 60
            else { return nil }
            var offset = 0
            if utf8.count == 6, utf8[5] == UInt8(ascii: "Z") {
                offset = 0
            } else if utf8.count == 11, utf8[5] == UInt8(ascii: "+") || utf8[5] == UInt8(ascii: "-"), utf8[8] == UInt8(ascii: ":"),
                      let zoneHours = number(6..<8), let zoneMinutes = number(9..<11), zoneHours <= 14, zoneMinutes < 60 {
                offset = (zoneHours * 60 + zoneMinutes) * (utf8[5] == UInt8(ascii: "+") ? 1 : -1)
            } else if utf8.count != 5 {
                return nil
            }
            return ((hours * 60 + minutes - offset) % 1440 + 1440) % 1440
        }
    }

    /// A request header whose value is a template of keys (`KakaoAK {key:SEEK_KAKAO_REST_API_KEY}`).
    public struct Header: Sendable, Hashable {
        public let name: String
        public let value: URLTemplate
    }

    /// What `--demo` serves for a declaration bundled in Seek: recordings by request.
    public struct Demo: Sendable, Hashable {
        public struct Route: Sendable, Hashable {
            /// The request path (a template's path, without the base URL); one ending in `*` is a prefix.
            public let path: String
            /// Query parameters the request must carry with these values (case and spaces aside).
            public let when: [String: String]
            /// The recordings answered; with `list`, their lists at that path are joined into the first one.
            public let files: [String]
            public let list: JSONPath?
            /// With `list`: answer only the element whose value here is the last path segment (a record).
            public let record: JSONPath?
            public let status: Int
        }

        /// Queries the recordings answer, for the demo banner and README.
        public let sampleQueries: [String]
        public let routes: [Route]
    }

    public let id: String
    public let name: String
    public let kind: ItemKind
    /// Placeholders: `{query}`, `{page}` (from 1), `{offset}` (from 0), `{start}` (from 1), `{limit}`, keys.
    /// With `baseURL`, a template starting with `/` is a path under the base URL.
    public let searchURL: URLTemplate
    /// Placeholders: `{id}`, keys. Without it the provider offers no detail.
    public let detailURL: URLTemplate?
    /// Placeholders: `{limit}`, keys. Without it the provider offers no trending.
    public let trendingURL: URLTemplate?
    /// The default base URL, and the setting that overrides it (`SEEK_KAKAO_URL`).
    public let baseURL: String?
    public let baseURLEnv: String?
    public let headers: [Header]
    /// Where the result list is in a search (or trending) response; the root by default.
    public let itemsPath: JSONPath
    public let totalPath: JSONPath?
    /// Keeps only the results that pass (`"media_type"` is `"Text"`).
    public let itemFilter: ValueTest?
    /// Where the record is in a detail response; the root by default. When it is a list (a look-up by
    /// search), the record is its element whose `id` is the one asked for.
    public let detailPath: JSONPath
    /// Where an API reports an error in a 200 response, and the values there that mean "no error".
    public let errorPath: JSONPath?
    public let okValues: [String]
    public let errorRules: [ErrorRule]
    public let fields: [Field: FieldSpec]
    /// Extra facts shown by `detail` (`"price": "price"`); one whose path is an object gives one
    /// attribute per entry (`"formats"` → `formats.application/epub+zip`).
    public let attributes: [String: FieldSpec]
    /// The environment variable holding the value of `{key}`; the key itself never lives in the config.
    /// Naming one that no template uses is allowed (the issue's own example does) and has no effect.
    public let keyEnv: String?
    /// Key variables a template may go without (the placeholder is then empty, the header left out).
    public let optionalKeys: Set<String>
    /// Every key variable a template or header uses, in order of first use.
    public let keyVariables: [String]
    /// The key variables without which the provider is `skipped`.
    public var requiredKeys: [String] { keyVariables.filter { !optionalKeys.contains($0) } }
    /// Whether a template needs a key: without its variable the provider is then `skipped`.
    public var needsKey: Bool { !requiredKeys.isEmpty }
    /// The API's fixed page size, when it ignores `{limit}`; sharpens when paging stops.
    public let pageSize: Int?
    /// The largest `{limit}` the API takes (Kakao: 50); a larger request asks for this many.
    public let maxLimit: Int?
    /// The size the `image` field is filed under.
    public let imageSize: ImageSize
    public let timeout: Duration
    public let weight: Double
    /// Extra bangs (`pg` for `!pg dickens`); the id is always one.
    public let bangs: [String]
    /// The pace the service asks for (`"2/s,burst=5"`), unless a setting says otherwise; nil for none.
    public let rateLimit: RateLimit?
    /// How many calls may be in flight at once; nil for no bound.
    public let concurrency: Int?
    public let demo: Demo?

    /// Every key an entry may have; anything else is reported, so a typo is not silently ignored.
    public static let knownKeys: Set<String> = [
        "id", "name", "kind", "searchURL", "detailURL", "trendingURL", "itemsPath", "totalPath", "detailPath",
        "errorPath", "okValues", "fields", "attributes", "keyEnv", "pageSize", "imageSize", "timeout", "weight",
        "baseURL", "baseURLEnv", "headers", "optionalKeys", "filter", "errors", "bangs", "rateLimit", "concurrency",
        "maxLimit", "demo",
    ]

    /// The declarations in `settings.file["jsonProviders"]`, validated; ids must not clash with each
    /// other nor with `reservedIDs` (the providers built in Swift).
    public static func all(in settings: Settings, reservedIDs: Set<String> = []) throws -> [JSONProviderDeclaration] {
        guard let list = settings.file["jsonProviders"] else { return [] }
        guard let entries = list.arrayValue else {
            throw SeekError(.configuration, detail: "\"jsonProviders\" in the config file must be a list of objects")
        }
        var declarations: [JSONProviderDeclaration] = []
        var seen: [String: Int] = [:]
        for (position, entry) in entries.enumerated() {
            let declaration = try JSONProviderDeclaration(parsing: entry, position: position)
            let fail = Failure(provider: declaration.id, position: position)
            if reservedIDs.contains(declaration.id) {
                throw fail("id", "'\(declaration.id)' is already the id of a built-in provider; choose another")
            }
            if let first = seen[declaration.id] {
                throw fail("id", "'\(declaration.id)' is already declared by jsonProviders[\(first)]")
            }
            seen[declaration.id] = position
            declarations.append(declaration)
        }
        return declarations
    }

    /// Parses and validates one entry; `position` is its index in the list, for messages (`origin` names
    /// the list: a bundled declaration's file).
    public init(parsing value: JSONValue, position: Int = 0, origin: String = "jsonProviders") throws {
        guard let object = value.objectValue else {
            throw SeekError(.configuration, detail: "\(origin)[\(position)] must be an object")
        }
        let rawID = object["id"]?.stringValue
        let unnamed = Failure(provider: rawID, position: position, origin: origin)
        guard let id = rawID, !id.isEmpty else { throw unnamed("id", "missing; give a lowercase id such as \"mybooks\"") }
        guard Self.isValidID(id) else {
            throw unnamed("id", "'\(id)' must start with a lowercase letter and hold only a-z, 0-9, '-' and '_' (at most 32)")
        }
        let fail = Failure(provider: id, position: position, origin: origin)
        if let unknown = Set(object.keys).subtracting(Self.knownKeys).sorted().first {
            throw fail(unknown, "unknown key (known: \(Self.knownKeys.sorted().joined(separator: ", ")))")
        }
        self.id = id
        name = try Self.string(object, "name", fail) ?? id
        let kind = try Self.string(object, "kind", fail) ?? "book"
        guard Self.isValidID(kind) else { throw fail("kind", "'\(kind)' must be a lowercase word such as book or gif") }
        self.kind = ItemKind(rawValue: kind)

        let keyEnv = try Self.string(object, "keyEnv", fail)
        if let keyEnv, !URLTemplate.isVariableName(keyEnv) {
            throw fail("keyEnv", "'\(keyEnv)' must be an environment variable name (A-Z, 0-9, _)")
        }
        let baseURL = try Self.string(object, "baseURL", fail)
        if let baseURL {
            guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  url.host?.isEmpty == false, url.query == nil, url.fragment == nil, !baseURL.contains("{")
            else { throw fail("baseURL", "'\(baseURL)' must be an absolute http(s) URL without a query") }
        }
        let baseURLEnv = try Self.string(object, "baseURLEnv", fail)
        if let baseURLEnv {
            guard URLTemplate.isVariableName(baseURLEnv) else {
                throw fail("baseURLEnv", "'\(baseURLEnv)' must be an environment variable name (A-Z, 0-9, _)")
            }
            guard baseURL != nil else { throw fail("baseURLEnv", "needs \"baseURL\", the default it overrides") }
        }
        var variables: [String] = []
        func noteKeys(_ template: URLTemplate, _ field: String) throws {
            for name in template.placeholders.sorted() {
                if name == "key" {
                    guard let keyEnv else {
                        throw fail(field, "uses {key} but \"keyEnv\" names no environment variable to read it from")
                    }
                    if !variables.contains(keyEnv) { variables.append(keyEnv) }
                } else if let variable = URLTemplate.keyVariable(in: name), !variables.contains(variable) {
                    variables.append(variable)
                }
            }
        }
        func template(_ field: String, _ allowed: Set<String>, required: Set<String>) throws -> URLTemplate? {
            guard let text = try Self.string(object, field, fail) else { return nil }
            let parsed: URLTemplate
            do throws(URLTemplateError) {
                if text.hasPrefix("/") {
                    guard let baseURL else {
                        throw URLTemplateError("a path ('\(text)') needs \"baseURL\"; else write an absolute http(s) URL")
                    }
                    parsed = try URLTemplate(parsing: text, allowed: allowed.union(["key"]), required: required, isURL: false)
                        .prefixed(by: baseURL)
                } else {
                    parsed = try URLTemplate(parsing: text, allowed: allowed.union(["key"]), required: required)
                }
            } catch {
                throw fail(field, error.reason)
            }
            try noteKeys(parsed, field)
            return parsed
        }
        guard let search = try template("searchURL", ["query", "page", "offset", "start", "limit"], required: ["query"]) else {
            throw fail("searchURL", "missing; give a URL template with {query}")
        }
        let detail = try template("detailURL", ["id"], required: ["id"])
        let trending = try template("trendingURL", ["limit"], required: [])
        var headers: [Header] = []
        if let headerValue = object["headers"] {
            guard let entries = headerValue.objectValue else { throw fail("headers", "must be an object of name: value template") }
            for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
                let field = "headers.\(name)"
                guard Self.isHeaderName(name) else { throw fail(field, "'\(name)' is not an HTTP header name") }
                guard case .string(let text) = value, !text.trimmed().isEmpty else { throw fail(field, "must be a non-empty string") }
                guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw fail(field, "must not hold line breaks or other control characters")
                }
                let parsed: URLTemplate
                do {
                    parsed = try URLTemplate(parsing: text, allowed: ["key"], isURL: false)
                } catch {
                    throw fail(field, error.reason)
                }
                try noteKeys(parsed, field)
                headers.append(Header(name: name, value: parsed))
            }
        }
        self.keyEnv = keyEnv
        self.baseURL = baseURL
        self.baseURLEnv = baseURLEnv
        self.headers = headers
        searchURL = search
        detailURL = detail
        trendingURL = trending
        keyVariables = variables
        var optional: Set<String> = []
        if let list = object["optionalKeys"] {
            guard let names = list.arrayValue?.compactMap(\.stringValue), names.count == list.arrayValue?.count else {
                throw fail("optionalKeys", "must be a list of environment variable names")
            }
            for name in names where !variables.contains(name) {
                throw fail("optionalKeys", "'\(name)' is not a key any template or header uses")
            }
            optional = Set(names)
        }
        optionalKeys = optional

        itemsPath = try Self.path(object, "itemsPath", fail) ?? .root
        totalPath = try Self.path(object, "totalPath", fail)
        detailPath = try Self.path(object, "detailPath", fail) ?? .root
        errorPath = try Self.path(object, "errorPath", fail)
        if let values = object["okValues"] {
            guard let list = values.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw fail("okValues", "must be a list of strings, e.g. [\"0\"]")
            }
            okValues = list.compactMap(\.stringValue)
        } else {
            okValues = ["0", "false", ""]
        }
        itemFilter = try object["filter"].map { try Self.valueTest($0, "filter", fail) }
        errorRules = try Self.errorRules(object["errors"], fail)

        guard let fieldObject = object["fields"] else { throw fail("fields", "missing; map at least \"id\" and \"title\"") }
        guard let fieldEntries = fieldObject.objectValue else { throw fail("fields", "must be an object of field: path") }
        var fields: [Field: FieldSpec] = [:]
        for (name, spec) in fieldEntries.sorted(by: { $0.key < $1.key }) {
            guard let field = Field(rawValue: name) else {
                let known = Field.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("fields.\(name)", "unknown field (known: \(known))")
            }
            fields[field] = try Self.fieldSpec(spec, "fields.\(name)", fail)
        }
        for required in [Field.id, .title] where fields[required] == nil {
            throw fail("fields.\(required.rawValue)", "missing; every result needs an id and a title")
        }
        self.fields = fields
        var attributes: [String: FieldSpec] = [:]
        if let attributeObject = object["attributes"] {
            guard let entries = attributeObject.objectValue else { throw fail("attributes", "must be an object of name: path") }
            for (name, spec) in entries.sorted(by: { $0.key < $1.key }) { attributes[name] = try Self.fieldSpec(spec, "attributes.\(name)", fail) }
        }
        self.attributes = attributes

        pageSize = try Self.number(object, "pageSize", in: 1...1000, fail).map { Int($0) }
        maxLimit = try Self.number(object, "maxLimit", in: 1...1000, fail).map { Int($0) }
        if let size = try Self.string(object, "imageSize", fail) {
            guard let parsed = ImageSize(rawValue: size) else {
                throw fail("imageSize", "'\(size)' must be one of small, medium, large, original")
            }
            imageSize = parsed
        } else {
            imageSize = .medium
        }
        timeout = .milliseconds(Int((try Self.number(object, "timeout", in: 0.001...3600, fail) ?? 10) * 1000))
        weight = try Self.number(object, "weight", in: 0.001...100, fail) ?? 1
        var bangs: [String] = []
        if let list = object["bangs"] {
            guard let names = list.arrayValue?.compactMap(\.stringValue), names.count == list.arrayValue?.count else {
                throw fail("bangs", "must be a list of words, e.g. [\"pg\"]")
            }
            for bang in names {
                let word = bang.hasPrefix("!") ? String(bang.dropFirst()) : bang
                guard Self.isValidID(word) else { throw fail("bangs", "'\(bang)' must be a lowercase word (a-z, 0-9, '-', '_')") }
                if word != id, !bangs.contains(word) { bangs.append(word) }
            }
        }
        self.bangs = bangs
        if let text = try Self.string(object, "rateLimit", fail) {
            guard let parsed = RateLimit.parse(text) else {
                throw fail("rateLimit", "'\(text)' is not a rate such as \"2/s\", \"100/min,burst=5\" or \"off\"")
            }
            rateLimit = parsed
        } else {
            rateLimit = nil
        }
        let concurrency = try Self.number(object, "concurrency", in: 1...1000, fail)
        if let concurrency, concurrency.rounded() != concurrency { throw fail("concurrency", "must be a whole number from 1 to 1000") }
        self.concurrency = concurrency.map { Int($0) }
        demo = try object["demo"].map { try Self.demo($0, fail) }
    }

    /// Builds the errors of one entry: `mybooks: configuration error: jsonProviders[0] ("mybooks"), field "searchURL": …`.
    struct Failure {
        let provider: String?
        let position: Int
        var origin = "jsonProviders"

        func callAsFunction(_ field: String, _ reason: String) -> SeekError {
            let name = provider.map { "\(origin)[\(position)] (\"\($0)\")" } ?? "\(origin)[\(position)]"
            return SeekError(.configuration, provider: provider, detail: "\(name), field \"\(field)\": \(reason)")
        }
    }

    static func isValidID(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLowercase, text.count <= 32 else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// RFC 9110's token characters.
    static func isHeaderName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.allSatisfy { character in
            character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+-.^_`|~".contains(character))
        }
    }

    private static func string(_ object: [String: JSONValue], _ key: String, _ fail: Failure) throws -> String? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw fail(key, "must be a string") }
        let trimmed = text.trimmed()
        guard !trimmed.isEmpty else { throw fail(key, "is empty") }
        return trimmed
    }

    private static func number(
        _ object: [String: JSONValue], _ key: String, in range: ClosedRange<Double>, _ fail: Failure
    ) throws -> Double? {
        guard let value = object[key] else { return nil }
        guard case .number(let number) = value, range.contains(number) else {
            throw fail(key, "must be a number from \(SeekError.format(range.lowerBound)) to \(SeekError.format(range.upperBound))")
        }
        return number
    }

    private static func path(_ object: [String: JSONValue], _ key: String, _ fail: Failure) throws -> JSONPath? {
        guard let value = object[key] else { return nil }
        guard case .string(let text) = value else { throw fail(key, "must be a dot-separated path string") }
        return try parsePath(text, key, fail)
    }

    /// A path as declarations write it: dot-separated, `[]` after a list's name optional (`authors[].name`).
    static func parsePath(_ text: String, _ field: String, _ fail: Failure) throws -> JSONPath {
        let plain = text.replacingOccurrences(of: "[]", with: "")
        do {
            return try JSONPath(parsing: plain)
        } catch {
            throw fail(field, error.description)
        }
    }

    /// `{"path": …, "equals": "Text" | ["ISBN_13", …]}`.
    private static func valueTest(_ value: JSONValue, _ field: String, _ fail: Failure) throws -> ValueTest {
        guard let object = value.objectValue else { throw fail(field, "must be {\"path\": …, \"equals\": …}") }
        if let unknown = Set(object.keys).subtracting(["path", "equals"]).sorted().first {
            throw fail(field, "unknown key '\(unknown)' (known: path, equals)")
        }
        guard case .string(let text)? = object["path"], !text.isEmpty else { throw fail(field, "needs a \"path\" string") }
        let path = try parsePath(text, field, fail)
        var equals: [String]?
        switch object["equals"] {
        case nil: equals = nil
        case .string(let one)?: equals = [one]
        case .array(let list)? where !list.isEmpty && list.allSatisfy({ $0.stringValue != nil }):
            equals = list.compactMap(\.stringValue)
        default: throw fail(field, "\"equals\" must be a string or a non-empty list of strings")
        }
        return ValueTest(path: path, equals: equals)
    }

    private static func errorRules(_ value: JSONValue?, _ fail: Failure) throws -> [ErrorRule] {
        guard let value else { return [] }
        guard let list = value.arrayValue else { throw fail("errors", "must be a list of {\"status\", \"path\", \"equals\", \"as\"}") }
        return try list.enumerated().map { index, entry in
            let field = "errors[\(index)]"
            guard let object = entry.objectValue else { throw fail(field, "must be an object") }
            if let unknown = Set(object.keys).subtracting(["status", "path", "equals", "as", "message", "resetsAt"]).sorted().first {
                throw fail(field, "unknown key '\(unknown)' (known: as, equals, message, path, resetsAt, status)")
            }
            var statuses: [Int] = []
            switch object["status"] {
            case nil: break
            case .number(let number)?: statuses = [Int(number)]
            case .array(let list)?: statuses = list.compactMap(\.intValue)
                if statuses.count != list.count { statuses = [] }
            default: break
            }
            if object["status"] != nil, statuses.isEmpty || !statuses.allSatisfy({ (100...599).contains($0) }) {
                throw fail(field, "\"status\" must be an HTTP status (100-599) or a list of them")
            }
            var test: ValueTest?
            if object["path"] != nil {
                var pair: [String: JSONValue] = ["path": object["path"] ?? .null]
                if let equals = object["equals"] { pair["equals"] = equals }
                test = try valueTest(.object(pair), field, fail)
            } else if object["equals"] != nil {
                throw fail(field, "\"equals\" needs a \"path\"")
            }
            guard statuses.isEmpty == false || test != nil else { throw fail(field, "needs a \"status\" or a \"path\" to match") }
            guard case .string(let name)? = object["as"], let outcome = ErrorRule.Outcome(rawValue: name) else {
                let known = ErrorRule.Outcome.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail(field, "\"as\" must be one of \(known)")
            }
            var message: JSONPath?
            if let text = object["message"] {
                guard case .string(let path) = text else { throw fail(field, "\"message\" must be a path string") }
                message = try parsePath(path, field, fail)
            }
            var resetsAt: Int?
            if let value = object["resetsAt"] {
                guard case .string(let text) = value, let minutes = ErrorRule.minutes(text) else {
                    throw fail(field, "\"resetsAt\" must be a time of day such as \"00:00+09:00\" (HH:MM, optionally a zone)")
                }
                guard outcome == .rateLimited else { throw fail(field, "\"resetsAt\" is for \"as\": \"rateLimited\"") }
                resetsAt = minutes
            }
            return ErrorRule(statuses: statuses, test: test, outcome: outcome, message: message, resetsAt: resetsAt)
        }
    }

    static let fieldKeys: Set<String> = [
        "path", "split", "where", "value", "after", "before", "stripMarkup", "names", "isbn", "format",
    ]

    private static func fieldSpec(_ value: JSONValue, _ field: String, _ fail: Failure) throws -> FieldSpec {
        switch value {
        case .string(let text):
            guard !text.isEmpty else { throw fail(field, "the path is empty") }
            return FieldSpec(path: try parsePath(text, field, fail))
        case .array(let list):
            guard !list.isEmpty else { throw fail(field, "an empty list of alternatives") }
            let specs = try list.enumerated().map { index, entry -> FieldSpec in
                if case .array = entry { throw fail(field, "alternative \(index + 1) must be a path or an object, not a list") }
                return try fieldSpec(entry, field, fail)
            }
            guard let first = specs.first else { throw fail(field, "an empty list of alternatives") }
            return first.with(alternatives: Array(specs.dropFirst()))
        case .object(let object):
            if let unknown = Set(object.keys).subtracting(fieldKeys).sorted().first {
                throw fail(field, "unknown key '\(unknown)' (known: \(fieldKeys.sorted().joined(separator: ", ")))")
            }
            guard case .string(let pathText)? = object["path"] else { throw fail(field, "needs a \"path\" string") }
            guard !pathText.isEmpty else { throw fail(field, "the path is empty") }
            let path = try parsePath(pathText, field, fail)
            func text(_ key: String) throws -> String? {
                guard let value = object[key] else { return nil }
                guard case .string(let text) = value, !text.isEmpty else { throw fail(field, "\"\(key)\" must be a non-empty string") }
                return text
            }
            let separator = try text("split")
            let filter = try object["where"].map { value -> ValueTest in
                guard let object = value.objectValue else { throw fail(field, "\"where\" must be {\"path\": …, \"equals\": …}") }
                return try valueTest(.object(object), field + ".where", fail)
            }
            let valuePath = try text("value").map { try parsePath($0, field + ".value", fail) }
            var stripMarkup = false
            if let strip = object["stripMarkup"] {
                guard case .bool(let flag) = strip else { throw fail(field, "\"stripMarkup\" must be true or false") }
                stripMarkup = flag
            }
            var names = NameOrder.asWritten
            if let text = try text("names") {
                guard let order = NameOrder(rawValue: text.lowercased()) else {
                    throw fail(field, "\"names\" must be \"last, first\" or \"as written\"")
                }
                names = order
            }
            var isbn: ISBNForm?
            if let text = try text("isbn") {
                guard let form = ISBNForm(rawValue: text.lowercased()) else { throw fail(field, "\"isbn\" must be \"13\", \"10\" or \"any\"") }
                isbn = form
            }
            let format = try text("format")
            if let format, !format.contains("{value}") { throw fail(field, "\"format\" must contain {value}") }
            return FieldSpec(
                path: path, separator: separator, filter: filter, valuePath: valuePath, after: try text("after"),
                before: try text("before"), stripMarkup: stripMarkup, names: names, isbn: isbn, format: format)
        default:
            throw fail(field, "must be a path string, {\"path\": …, \"split\": …} or a list of them")
        }
    }

    private static func demo(_ value: JSONValue, _ fail: Failure) throws -> Demo {
        guard let object = value.objectValue else { throw fail("demo", "must be {\"sampleQueries\": […], \"routes\": […]}") }
        if let unknown = Set(object.keys).subtracting(["sampleQueries", "routes"]).sorted().first {
            throw fail("demo", "unknown key '\(unknown)' (known: routes, sampleQueries)")
        }
        let samples = object["sampleQueries"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let list = object["sampleQueries"], list.arrayValue?.count != samples.count {
            throw fail("demo.sampleQueries", "must be a list of strings")
        }
        guard let list = object["routes"]?.arrayValue, !list.isEmpty else { throw fail("demo.routes", "must be a non-empty list") }
        let routes = try list.enumerated().map { index, entry -> Demo.Route in
            let field = "demo.routes[\(index)]"
            guard let route = entry.objectValue else { throw fail(field, "must be an object") }
            if let unknown = Set(route.keys).subtracting(["path", "when", "files", "list", "record", "status"]).sorted().first {
                throw fail(field, "unknown key '\(unknown)' (known: files, list, path, record, status, when)")
            }
            guard case .string(let path)? = route["path"], path.hasPrefix("/") else { throw fail(field, "needs a \"path\" starting with /") }
            var when: [String: String] = [:]
            if let value = route["when"] {
                guard let pairs = value.objectValue else { throw fail(field, "\"when\" must be an object of parameter: value") }
                for (name, value) in pairs {
                    guard let text = value.stringValue else { throw fail(field, "\"when.\(name)\" must be a string") }
                    when[name] = text
                }
            }
            guard let files = route["files"]?.arrayValue?.compactMap(\.stringValue), !files.isEmpty,
                  files.count == route["files"]?.arrayValue?.count,
                  files.allSatisfy({ !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") })
            else { throw fail(field, "\"files\" must be a non-empty list of file names") }
            let list = try route["list"].map { value -> JSONPath in
                guard case .string(let text) = value else { throw fail(field, "\"list\" must be a path string") }
                return try parsePath(text, field, fail)
            }
            let record = try route["record"].map { value -> JSONPath in
                guard case .string(let text) = value, list != nil else { throw fail(field, "\"record\" must be a path string, with \"list\"") }
                return try parsePath(text, field, fail)
            }
            var status = 200
            if let value = route["status"] {
                guard let number = value.intValue, (100...599).contains(number) else { throw fail(field, "\"status\" must be an HTTP status") }
                status = number
            }
            return Demo.Route(path: path, when: when, files: files, list: list, record: record, status: status)
        }
        return Demo(sampleQueries: samples, routes: routes)
    }
}

extension JSONProviderDeclaration.FieldSpec {
    func with(alternatives: [Self]) -> Self {
        Self(
            path: path, separator: separator, filter: filter, valuePath: valuePath, after: after, before: before,
            stripMarkup: stripMarkup, names: names, isbn: isbn, format: format, alternatives: alternatives)
    }
}
