import SeekCore
import SeekKit

/// A GIPHY response body read leniently, value by value: `data` (array, object or absent), `pagination`,
/// `meta`, and the legacy `{"message": …}` error form. `Entry` is what `data` holds: GIFs, or tags.
struct GiphyEnvelope<Entry: GiphyEntry> {
    /// What `data` was, as far as telling a real answer from an empty or synthetic one needs.
    enum DataShape: Equatable {
        /// Absent or `null`.
        case none
        case array(count: Int)
        case object(isEmpty: Bool)
        /// A string, number or boolean: no entries.
        case scalar
    }

    private(set) var data: DataShape = .none
    /// The entries of a list body, or the one entry of a single-object body; elements that are not
    /// objects are left out.
    private(set) var entries: [Entry] = []
    private(set) var totalCount: Int?
    private(set) var metaStatus: Int?
    /// The API's own words: `meta.msg`, else a top-level `message`.
    private(set) var message: String?
    private(set) var responseID: String?

    /// Nil (the value checked and skipped) when the body is not an object.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        var meta = Meta()
        var topMessage: String?
        let isObject = try reader.readObject(Self.fields) { reader, field throws(JSONParseError) in
            switch field {
            case .data: try readData(&reader)
            case .pagination: totalCount = try Pagination(reading: &reader).totalCount
            case .meta: meta = try Meta(reading: &reader)
            case .message: topMessage = try reader.readValue().stringValue
            case nil: break
            }
        }
        guard isObject else { return nil }
        metaStatus = meta.status
        responseID = meta.responseID
        let text = meta.message ?? topMessage
        message = (text?.isEmpty ?? true) ? nil : text
    }

    private mutating func readData(_ reader: inout JSONReader) throws(JSONParseError) {
        entries = []
        switch reader.nextKind {
        case .array:
            var count = 0
            try reader.readArray { reader throws(JSONParseError) in
                count += 1
                if let entry = try Entry(reading: &reader) { entries.append(entry) }
            }
            data = .array(count: count)
        case .object:
            let entry = try Entry(reading: &reader)
            entries = entry.map { [$0] } ?? []
            data = .object(isEmpty: entry?.isEmpty ?? true)
        case .null, nil:
            // `null`, or something malformed, which skipping reports.
            try reader.skipValue()
            data = .none
        case .string, .number, .bool:
            try reader.skipValue()
            data = .scalar
        }
    }

    /// GIPHY's "synthetic response": status 200, an empty `response_id` and no data. Its docs say to treat it as an error.
    var isSynthetic: Bool {
        guard responseID == "", metaStatus == nil || metaStatus == 200 else { return false }
        switch data {
        case .array(let count): return count == 0
        case .object(let isEmpty): return isEmpty
        case .none, .scalar: return true
        }
    }

    private static var fields: JSONFields<GiphyEnvelopeField> { GiphyFields.envelope }
}

enum GiphyEnvelopeField: String, CaseIterable, Sendable {
    case data, pagination, meta, message
}

/// The member names each GIPHY object is read by, made once.
enum GiphyFields {
    static let envelope = JSONFields<GiphyEnvelopeField>()
    static let tag = JSONFields<GiphyTag.Field>()
    static let pagination = JSONFields<Pagination.Field>()
    static let meta = JSONFields<Meta.Field>()
    static let gif = JSONFields<GiphyGIF.Field>()
    static let user = JSONFields<GiphyGIF.UserField>()
    static let renditions = JSONFields<GiphyRendition.Name>()
    static let rendition = JSONFields<GiphyRendition.Field>()
}

/// What `data` lists: read from a value, nil (the value skipped) when it is not an object.
protocol GiphyEntry {
    init?(reading reader: inout JSONReader) throws(JSONParseError)
    /// Whether the object had no members at all (a synthetic response's `data: {}`).
    var isEmpty: Bool { get }
}

/// A `/gifs/search/tags` entry.
struct GiphyTag: GiphyEntry {
    var name: JSONValue?
    private(set) var isEmpty = true

    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        var name: JSONValue?
        var isEmpty = true
        guard try reader.readObject(GiphyFields.tag, { reader, field throws(JSONParseError) in
            isEmpty = false
            if field == .name { name = try reader.readValue() }
        }) else { return nil }
        self.name = name
        self.isEmpty = isEmpty
    }

    enum Field: String, CaseIterable, Sendable { case name }
}

struct Pagination {
    var totalCount: Int?

    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var totalCount: Int?
        try reader.readObject(GiphyFields.pagination) { reader, field throws(JSONParseError) in
            if field == .totalCount { totalCount = try reader.readValue().intValue }
        }
        self.totalCount = totalCount
    }

    enum Field: String, CaseIterable, Sendable { case totalCount = "total_count" }
}

struct Meta {
    var status: Int?
    var message: String?
    var responseID: String?

    init() {}

    init(reading reader: inout JSONReader) throws(JSONParseError) {
        try reader.readObject(GiphyFields.meta) { reader, field throws(JSONParseError) in
            switch field {
            case .status: status = try reader.readValue().intValue
            case .msg: message = try reader.readValue().stringValue
            case .responseID: responseID = try reader.readValue().stringValue
            case nil: break
            }
        }
    }

    enum Field: String, CaseIterable, Sendable { case status, msg, responseID = "response_id" }
}
