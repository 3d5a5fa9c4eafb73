import Foundation
import SeekCore
import SeekKit

// Open Library's JSON drifted a lot over the years (see the reference's decoder notes), so every
// model here reads each field on its own: a field of an unexpected type is dropped, never fatal.

/// The `/search.json` envelope: `numFound` or `num_found` (either may be missing), `docs`, and an
/// `error` that replaces results when the search backend failed. Read with a `JSONReader`, which
/// costs a fraction of a `Decoder` pass, or of a `JSONValue` tree, over the same lenient fields.
struct OpenLibrarySearchEnvelope {
    var numFound: Int?
    /// Nil when the body has no `docs` list at all (then it is not a search response).
    var docs: [OpenLibrarySearchDoc]?
    /// The backend's failure (`solr_request_failed`), when it reported one.
    var error: String?

    /// Read value by value: no tree is built, and fields a search does not use are skipped. A field
    /// given twice counts as its last; entries of `docs` that are not objects are skipped, not fatal.
    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var camelCount: Int?, snakeCount: Int?
        var docs: [OpenLibrarySearchDoc]?
        var error: String?
        try reader.readObject(Self.fields) { reader, field throws(JSONParseError) in
            switch field {
            case .numFound: camelCount = try reader.readValue().wholeNumber
            case .snakeNumFound: snakeCount = try reader.readValue().wholeNumber
            case .docs:
                var read: [OpenLibrarySearchDoc] = []
                let isList = try reader.readArray { reader throws(JSONParseError) in
                    if let doc = try OpenLibrarySearchDoc(reading: &reader) { read.append(doc) }
                }
                docs = isList ? read : nil
            case .error:
                let value = try reader.readValue()
                error = value == .null ? nil : value.stringValue ?? "unspecified error"
            case nil: break
            }
        }
        numFound = camelCount ?? snakeCount
        self.docs = docs
        self.error = error
    }

    private enum Field: String, CaseIterable, Sendable {
        case numFound, snakeNumFound = "num_found", docs, error
    }

    private static let fields = JSONFields<Field>()
}

/// One work (or, for orphaned editions, one edition) in a search response.
struct OpenLibrarySearchDoc {
    var key: String?
    var title: String?
    var subtitle: String?
    var authorNames: [String]
    var firstPublishYear: Int?
    var coverID: Int?
    var isbns: [String]

    /// Nil (the value skipped) when it is not an object; a field of an unexpected type reads as
    /// missing, and a list's elements of another type are left out.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        var key: String?, title: String?, subtitle: String?
        var authorNames: [String] = [], isbns: [String] = []
        var firstPublishYear: Int?, coverID: Int?
        let isObject = try reader.readObject(Self.fields) { reader, field throws(JSONParseError) in
            switch field {
            case .key: key = try reader.readString()
            case .title: title = try reader.readString()
            case .subtitle: subtitle = try reader.readString()
            case .authorNames: authorNames = try Self.strings(&reader)
            case .firstPublishYear: firstPublishYear = try reader.readValue().wholeNumber
            case .coverID: coverID = try reader.readValue().wholeNumber
            case .isbns: isbns = try Self.strings(&reader)
            case nil: break
            }
        }
        guard isObject else { return nil }
        self.key = key
        self.title = title
        self.subtitle = subtitle
        self.authorNames = authorNames
        self.firstPublishYear = firstPublishYear
        self.coverID = coverID
        self.isbns = isbns
    }

    /// The strings of a list (its other elements skipped); empty when the value is no list.
    private static func strings(_ reader: inout JSONReader) throws(JSONParseError) -> [String] {
        var strings: [String] = []
        try reader.readArray { reader throws(JSONParseError) in
            if let string = try reader.readString() { strings.append(string) }
        }
        return strings
    }

    private enum Field: String, CaseIterable, Sendable {
        case key, title, subtitle, authorNames = "author_name", firstPublishYear = "first_publish_year", coverID = "cover_i", isbns = "isbn"
    }

    private static let fields = JSONFields<Field>()
}

private extension JSONValue {
    /// A JSON string, else nil: like the `Decodable` records below, a field of another type
    /// counts as missing rather than being converted.
    var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A JSON number without a fraction, else nil.
    var wholeNumber: Int? {
        guard case .number(let value) = self, value == value.rounded(), abs(value) < 9e15 else { return nil }
        return Int(checked: value)
    }
}

/// A record from `/works`, `/books` or `/authors`: one type for all three, since they share the
/// envelope (`key`, `type`, redirect `location`) and detail reads only a few fields of each.
struct OpenLibraryRecord: Decodable {
    var key: String?
    /// `/type/work`, `/type/edition`, `/type/author`, `/type/redirect`, `/type/delete`.
    var type: String?
    /// Where a `/type/redirect` record points (`/works/OL…W`).
    var location: String?
    /// `{"error": "notfound"}` bodies.
    var error: String?

    var title: String?
    var subtitle: String?
    /// Authors' display name, and the fallback some old author records use.
    var name: String?
    var personalName: String?
    var description: String?
    var firstSentence: String?
    /// Author keys (`/authors/OL…A`) of a work's `{author:{key}}` roles or an edition's `{key}` refs.
    var authorKeys: [String]
    /// Work keys of an edition.
    var workKeys: [String]
    /// Cover ids; may hold `-1` or `null`, which mean "no cover".
    var covers: [Int]
    var subjects: [String]
    /// Free-form dates ("February 1983"), kept as written.
    var firstPublishDate: String?
    var publishDate: String?
    var publishers: [String]
    var numberOfPages: Int?
    var isbn10: [String]
    var isbn13: [String]
    var contributors: [Contributor]
    /// ISO 8601 without a zone, kept as a string (`.iso8601` decoding rejects it).
    var lastModified: String?

    private enum CodingKeys: String, CodingKey {
        case key, type, location, error, title, subtitle, name, description, authors, works, covers, subjects
        case publishers, contributors
        case personalName = "personal_name"
        case firstSentence = "first_sentence"
        case firstPublishDate = "first_publish_date"
        case publishDate = "publish_date"
        case numberOfPages = "number_of_pages"
        case isbn10 = "isbn_10"
        case isbn13 = "isbn_13"
        case lastModified = "last_modified"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = container.lenient(String.self, .key)
        type = container.lenient(OpenLibraryKeyRef.self, .type)?.key
        location = container.lenient(String.self, .location)
        error = container.lenient(String.self, .error)
        title = container.lenient(String.self, .title)
        subtitle = container.lenient(String.self, .subtitle)
        name = container.lenient(String.self, .name)
        personalName = container.lenient(String.self, .personalName)
        description = container.lenient(OpenLibraryText.self, .description)?.value
        firstSentence = container.lenient(OpenLibraryText.self, .firstSentence)?.value
        authorKeys = container.lenientList(OpenLibraryAuthorRef.self, .authors).map(\.key)
        workKeys = container.lenientList(OpenLibraryKeyRef.self, .works).map(\.key)
        covers = container.lenientList(Int.self, .covers)
        subjects = container.lenientList(String.self, .subjects)
        firstPublishDate = container.lenient(String.self, .firstPublishDate)
        publishDate = container.lenient(String.self, .publishDate)
        publishers = container.lenientList(String.self, .publishers)
        numberOfPages = container.lenient(Int.self, .numberOfPages)
        isbn10 = container.lenientList(String.self, .isbn10)
        isbn13 = container.lenientList(String.self, .isbn13)
        contributors = container.lenientList(OpenLibraryContributor.self, .contributors).map(\.contributor)
        lastModified = container.lenient(OpenLibraryText.self, .lastModified)?.value
    }

    /// True when the body has at least one field every work, edition or author record has.
    var looksLikeRecord: Bool { key != nil || title != nil || name != nil }

    /// An author's name as shown: `name`, else `personal_name`.
    var displayName: String? {
        [name, personalName].lazy.compactMap { $0?.trimmed() }
            .first { !$0.isEmpty }
    }
}

/// `{"key": "/type/work"}` and the other key references.
struct OpenLibraryKeyRef: Decodable {
    var key: String
}

/// A work's author role `{"author": {"key": …}, "type": …}`, or an edition's plain `{"key": …}`.
struct OpenLibraryAuthorRef: Decodable {
    var key: String

    private enum CodingKeys: String, CodingKey {
        case author, key
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let author = container.lenient(OpenLibraryKeyRef.self, .author) {
            key = author.key
        } else {
            key = try container.decode(String.self, forKey: .key)
        }
    }
}

/// A text that comes as a plain string or as `{"type": "/type/text", "value": …}`
/// (also used for `{"type": "/type/datetime", "value": …}`).
struct OpenLibraryText: Decodable {
    var value: String

    private enum CodingKeys: String, CodingKey {
        case value
    }

    init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            value = text
        } else {
            value = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .value)
        }
    }
}

/// An edition's `contributors` entry, `{"name": …, "role": …}`.
struct OpenLibraryContributor: Decodable {
    var contributor: Contributor

    private enum CodingKeys: String, CodingKey {
        case name, role
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contributor = Contributor(
            name: try container.decode(String.self, forKey: .name),
            role: container.lenient(String.self, .role))
    }
}

/// A JSON array whose elements that fail to decode are skipped instead of failing the whole array.
struct LossyArray<Element: Decodable>: Decodable {
    var elements: [Element]

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var elements: [Element] = []
        while !container.isAtEnd {
            if let element = try? container.decode(Element.self) {
                elements.append(element)
            } else if (try? container.decode(JSONValue.self)) == nil {
                break  // Could not even skip the element: stop rather than loop forever.
            }
        }
        self.elements = elements
    }
}

extension KeyedDecodingContainer {
    /// The value at `key`, or nil when it is missing, null or of another type.
    func lenient<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        try? decodeIfPresent(type, forKey: key)
    }

    /// The elements at `key` that decode as `T`; empty when the key is missing or not an array.
    func lenientList<T: Decodable>(_ type: T.Type, _ key: Key) -> [T] {
        lenient(LossyArray<T>.self, key)?.elements ?? []
    }
}
