import Foundation
import SeekCore
import SeekKit

/// An answer the response cache stores: read back with `JSONDecoder` (its `Codable` conformance),
/// written with `JSONWriter` in the same layout. `JSONEncoder` took a quarter of a busy server's CPU
/// encoding answers to store, by reflection; this writes the same fields directly.
protocol StoredAnswer: Codable, Sendable {
    var storedJSON: Data { get }
}

extension CachedPage: StoredAnswer {
    var storedJSON: Data {
        var writer = JSONWriter()
        writer.object { writer in
            writer.field("items") { writer in writer.array(items) { writer, item in AnswerJSON.write(item, to: &writer) } }
            if let total { writer.field("total", total) }
            if let next { writer.field("next", next) }
        }
        return Data(writer.text.utf8)
    }
}

extension ItemDetail: StoredAnswer {
    var storedJSON: Data {
        var writer = JSONWriter()
        AnswerJSON.write(self, to: &writer)
        return Data(writer.text.utf8)
    }
}

/// The `Codable` layout of the models, as `JSONEncoder` writes it: property names as keys, nil
/// optionals left out, ids and URLs as strings, a dictionary keyed by `ImageSize` as an array of
/// alternating keys and values (its keys are neither strings nor `CodingKeyRepresentable`).
enum AnswerJSON {
    static func write(_ detail: ItemDetail, to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("item") { writer in write(detail.item, to: &writer) }
            if let description = detail.description { writer.field("description", description) }
            writer.field("contributors") { writer in
                writer.array(detail.contributors) { writer, person in
                    writer.object { writer in
                        writer.field("name", person.name)
                        if let role = person.role { writer.field("role", role) }
                    }
                }
            }
            writer.field("subjects", detail.subjects)
            writer.field("publishers", detail.publishers)
            if let publishDate = detail.publishDate { writer.field("publishDate", publishDate) }
            if let pageCount = detail.pageCount { writer.field("pageCount", pageCount) }
            writer.field("attributes", detail.attributes)
            if let redirect = detail.redirect {
                writer.field("redirect") { writer in
                    writer.object { writer in
                        writer.field("from", redirect.from.description)
                        writer.field("to", redirect.to.description)
                    }
                }
            }
        }
    }

    static func write(_ item: Item, to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("id", item.id.description)
            writer.field("kind", item.kind.rawValue)
            writer.field("title", item.title)
            if let subtitle = item.subtitle { writer.field("subtitle", subtitle) }
            writer.field("creators", item.creators)
            if let year = item.year { writer.field("year", year) }
            writer.field("identifiers") { writer in
                writer.object { writer in
                    writer.field("isbn13", item.identifiers.isbn13)
                    writer.field("isbn10", item.identifiers.isbn10)
                    writer.field("other", item.identifiers.other)
                }
            }
            writer.field("images") { writer in
                writer.array { writer in
                    for size in ImageSize.allCases {
                        guard let image = item.images[size] else { continue }
                        writer.element(size.rawValue)
                        writer.element { writer in write(image, to: &writer) }
                    }
                }
            }
            if let url = item.url { writer.field("url", url.absoluteString) }
        }
    }

    static func write(_ image: ImageReference, to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("url", image.url.absoluteString)
            writer.field("size", image.size.rawValue)
            if let width = image.width { writer.field("width", width) }
            if let height = image.height { writer.field("height", height) }
        }
    }
}
