import Foundation
import SeekKit
import SeekCore

/// One entry of the config file's `"jsonProviders"` list: a provider described by URL templates and
/// JSON paths instead of Swift. Parsing validates everything, so a mistake is a configuration error
/// naming the provider and the field at start-up, never a crash or a silently missing provider.
public struct JSONProviderDeclaration: Sendable, Hashable {
    /// What a declared provider can map from a result or a detail record.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case id, title, subtitle, creators, year, isbn, image, thumbnail, url
        case description, publishers, date, pages, subjects
    }

    /// Where a field's value lives, and an optional separator that splits a string into several values
    /// (`"authors": "Mark Lutz, David Ascher"` with `","`).
    public struct FieldSpec: Sendable, Hashable {
        public let path: JSONPath
        public let separator: String?

        public init(path: JSONPath, separator: String? = nil) {
            self.path = path
            self.separator = separator
        }
    }

    public let id: String
    public let name: String
    public let kind: ItemKind
    /// Placeholders: `{query}`, `{page}` (from 1), `{offset}` (from 0), `{limit}`, `{key}`.
    public let searchURL: URLTemplate
    /// Placeholders: `{id}`, `{key}`. Without it the provider offers no detail.
    public let detailURL: URLTemplate?
    /// Placeholders: `{limit}`, `{key}`. Without it the provider offers no trending.
    public let trendingURL: URLTemplate?
    /// Where the result list is in a search (or trending) response; the root by default.
    public let itemsPath: JSONPath
    public let totalPath: JSONPath?
    /// Where the record is in a detail response; the root by default.
    public let detailPath: JSONPath
    /// Where an API reports an error in a 200 response, and the values there that mean "no error".
    public let errorPath: JSONPath?
    public let okValues: [String]
    public let fields: [Field: FieldSpec]
    /// Extra facts shown by `detail` (`"price": "price"`).
    public let attributes: [String: FieldSpec]
    /// The environment variable holding the value of `{key}`; the key itself never lives in the config.
    /// Naming one that no template uses is allowed (the issue's own example does) and has no effect.
    public let keyEnv: String?
    /// Whether a URL template uses `{key}`: without its variable the provider is then `skipped`.
    public var needsKey: Bool {
        [searchURL, detailURL, trendingURL].contains { $0?.placeholders.contains("key") == true }
    }
    /// The API's fixed page size, when it ignores `{limit}`; sharpens when paging stops.
    public let pageSize: Int?
    /// The size the `image` field is filed under.
    public let imageSize: ImageSize
    public let timeout: Duration
    public let weight: Double

    /// Every key an entry may have; anything else is reported, so a typo is not silently ignored.
    public static let knownKeys: Set<String> = [
        "id", "name", "kind", "searchURL", "detailURL", "trendingURL", "itemsPath", "totalPath", "detailPath",
        "errorPath", "okValues", "fields", "attributes", "keyEnv", "pageSize", "imageSize", "timeout", "weight",
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

    /// Parses and validates one entry; `position` is its index in the list, for messages.
    public init(parsing value: JSONValue, position: Int = 0) throws {
        guard let object = value.objectValue else {
            throw SeekError(.configuration, detail: "jsonProviders[\(position)] must be an object")
        }
        let rawID = object["id"]?.stringValue
        let unnamed = Failure(provider: rawID, position: position)
        guard let id = rawID, !id.isEmpty else { throw unnamed("id", "missing; give a lowercase id such as \"mybooks\"") }
        guard Self.isValidID(id) else {
            throw unnamed("id", "'\(id)' must start with a lowercase letter and hold only a-z, 0-9, '-' and '_' (at most 32)")
        }
        let fail = Failure(provider: id, position: position)
        if let unknown = Set(object.keys).subtracting(Self.knownKeys).sorted().first {
            throw fail(unknown, "unknown key (known: \(Self.knownKeys.sorted().joined(separator: ", ")))")
        }
        self.id = id
        name = try Self.string(object, "name", fail) ?? id
        let kind = try Self.string(object, "kind", fail) ?? "book"
        guard Self.isValidID(kind) else { throw fail("kind", "'\(kind)' must be a lowercase word such as book or gif") }
        self.kind = ItemKind(rawValue: kind)

        let keyEnv = try Self.string(object, "keyEnv", fail)
        if let keyEnv, !keyEnv.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") }) {
            throw fail("keyEnv", "'\(keyEnv)' must be an environment variable name (A-Z, 0-9, _)")
        }
        func template(_ field: String, _ allowed: Set<String>, required: Set<String>) throws -> URLTemplate? {
            guard let text = try Self.string(object, field, fail) else { return nil }
            let parsed: URLTemplate
            do {
                parsed = try URLTemplate(parsing: text, allowed: allowed.union(["key"]), required: required)
            } catch {
                throw fail(field, error.reason)
            }
            if parsed.placeholders.contains("key"), keyEnv == nil {
                throw fail(field, "uses {key} but \"keyEnv\" names no environment variable to read it from")
            }
            return parsed
        }
        guard let search = try template("searchURL", ["query", "page", "offset", "limit"], required: ["query"]) else {
            throw fail("searchURL", "missing; give a URL template with {query}")
        }
        let detail = try template("detailURL", ["id"], required: ["id"])
        let trending = try template("trendingURL", ["limit"], required: [])
        self.keyEnv = keyEnv
        searchURL = search
        detailURL = detail
        trendingURL = trending

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
    }

    /// Builds the errors of one entry: `mybooks: configuration error: jsonProviders[0] ("mybooks"), field "searchURL": …`.
    struct Failure {
        let provider: String?
        let position: Int

        func callAsFunction(_ field: String, _ reason: String) -> SeekError {
            let name = provider.map { "jsonProviders[\(position)] (\"\($0)\")" } ?? "jsonProviders[\(position)]"
            return SeekError(.configuration, provider: provider, detail: "\(name), field \"\(field)\": \(reason)")
        }
    }

    static func isValidID(_ text: String) -> Bool {
        guard let first = text.first, first.isASCII, first.isLowercase, text.count <= 32 else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
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
        do {
            return try JSONPath(parsing: text)
        } catch {
            throw fail(key, error.description)
        }
    }

    private static func fieldSpec(_ value: JSONValue, _ field: String, _ fail: Failure) throws -> FieldSpec {
        let pathText: String
        var separator: String?
        switch value {
        case .string(let text):
            pathText = text
        case .object(let object):
            if let unknown = Set(object.keys).subtracting(["path", "split"]).sorted().first {
                throw fail(field, "unknown key '\(unknown)' (known: path, split)")
            }
            guard case .string(let text)? = object["path"] else { throw fail(field, "needs a \"path\" string") }
            pathText = text
            if let split = object["split"] {
                guard case .string(let text) = split, !text.isEmpty else { throw fail(field, "\"split\" must be a non-empty string") }
                separator = text
            }
        default:
            throw fail(field, "must be a path string or {\"path\": …, \"split\": …}")
        }
        guard !pathText.isEmpty else { throw fail(field, "the path is empty") }
        do {
            return FieldSpec(path: try JSONPath(parsing: pathText), separator: separator)
        } catch {
            throw fail(field, error.description)
        }
    }
}
