import SeekCore
import SeekKit

/// An Aladin answer (`output=js`, made strict by `AladinJSON`), read value by value: the error members
/// Aladin sends with HTTP 200, `totalResults` and the `item` list. A member given twice counts as its
/// last, as in a parsed object.
struct AladinEnvelope {
    /// `errorCode` and `errorMessage`, as given (`null` included): either makes the body an error.
    var errorCode: JSONValue?
    var errorMessage: JSONValue?
    var totalResults: JSONValue?
    /// The objects of `item`; nil when it is absent or no list.
    var items: [AladinItem]?
    /// The first element of `item`, when it is an object (a lookup's answer).
    var firstItem: AladinItem?

    /// Nil (the value checked and skipped) when the body is not an object.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        var errorCode: JSONValue?, errorMessage: JSONValue?, totalResults: JSONValue?
        var items: [AladinItem]?, firstItem: AladinItem?
        let isObject = try reader.readObject(AladinFields.envelope) { reader, field throws(JSONParseError) in
            switch field {
            case .errorCode: errorCode = try reader.readValue()
            case .errorMessage: errorMessage = try reader.readValue()
            case .totalResults: totalResults = try reader.readValue()
            case .item:
                var read: [AladinItem] = []
                var first: AladinItem?
                var position = 0
                let isList = try reader.readArray { reader throws(JSONParseError) in
                    if let item = try AladinItem(reading: &reader) {
                        if position == 0 { first = item }
                        read.append(item)
                    }
                    position += 1
                }
                items = isList ? read : nil
                firstItem = first
            case nil: break
            }
        }
        guard isObject else { return nil }
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.totalResults = totalResults
        self.items = items
        self.firstItem = firstItem
    }

    enum Field: String, CaseIterable, Sendable {
        case errorCode, errorMessage, totalResults, item
    }
}

/// One `item` object: the members the mapping reads, each the JSON value Aladin gave (nil when absent).
/// `subInfo` and `seriesInfo` are kept whole: a lookup reads lists and offers nested in them.
struct AladinItem {
    var itemId: JSONValue?
    var isbn13: JSONValue?
    var isbn: JSONValue?
    var title: JSONValue?
    var author: JSONValue?
    var pubDate: JSONValue?
    var cover: JSONValue?
    var link: JSONValue?
    var description: JSONValue?
    var categoryName: JSONValue?
    var publisher: JSONValue?
    var priceSales: JSONValue?
    var priceStandard: JSONValue?
    var salesPoint: JSONValue?
    var mallType: JSONValue?
    var stockStatus: JSONValue?
    var customerReviewRank: JSONValue?
    var bestRank: JSONValue?
    var mileage: JSONValue?
    var subInfo: JSONValue?
    var seriesInfo: JSONValue?

    /// Nil (the value skipped) when it is not an object.
    init?(reading reader: inout JSONReader) throws(JSONParseError) {
        let isObject = try reader.readObject(AladinFields.item) { reader, field throws(JSONParseError) in
            guard let field else { return }
            let value = try reader.readValue()
            switch field {
            case .itemId: itemId = value
            case .isbn13: isbn13 = value
            case .isbn: isbn = value
            case .title: title = value
            case .author: author = value
            case .pubDate: pubDate = value
            case .cover: cover = value
            case .link: link = value
            case .description: description = value
            case .categoryName: categoryName = value
            case .publisher: publisher = value
            case .priceSales: priceSales = value
            case .priceStandard: priceStandard = value
            case .salesPoint: salesPoint = value
            case .mallType: mallType = value
            case .stockStatus: stockStatus = value
            case .customerReviewRank: customerReviewRank = value
            case .bestRank: bestRank = value
            case .mileage: mileage = value
            case .subInfo: subInfo = value
            case .seriesInfo: seriesInfo = value
            }
        }
        guard isObject else { return nil }
    }

    /// The members a lookup lists as attributes, by their names there.
    var attributeMembers: [(name: String, value: JSONValue?)] {
        [
            ("priceSales", priceSales), ("priceStandard", priceStandard), ("salesPoint", salesPoint),
            ("categoryName", categoryName), ("mallType", mallType), ("stockStatus", stockStatus),
            ("customerReviewRank", customerReviewRank), ("bestRank", bestRank), ("mileage", mileage),
        ]
    }

    enum Field: String, CaseIterable, Sendable {
        case itemId, isbn13, isbn, title, author, pubDate, cover, link, description, categoryName, publisher
        case priceSales, priceStandard, salesPoint, mallType, stockStatus, customerReviewRank, bestRank, mileage
        case subInfo, seriesInfo
    }
}

/// The member names Aladin's objects are read by, made once.
enum AladinFields {
    static let envelope = JSONFields<AladinEnvelope.Field>()
    static let item = JSONFields<AladinItem.Field>()
}
