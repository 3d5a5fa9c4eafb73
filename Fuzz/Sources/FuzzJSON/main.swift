import Foundation
import FuzzSupport
import SeekKit

/// `JSONValue(parsing:)` on any bytes: a value or a `JSONParseError`, never a crash. A value it parses,
/// written back as JSON text with `JSONWriter`, parses again to the same value. `JSONReader` on the
/// same bytes fails with the same error, or reads what the parsed value holds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    let parsed: Result<JSONValue, JSONParseError>
    do throws(JSONParseError) { parsed = .success(try JSONValue(parsing: input.data)) } catch { parsed = .failure(error) }
    let read: Result<Fields, JSONParseError>
    do throws(JSONParseError) {
        read = .success(try JSONReader.read(input.data) { reader throws(JSONParseError) in try Fields(reading: &reader) })
    } catch {
        read = .failure(error)
    }
    switch (parsed, read) {
    case (.failure(let parseError), .failure(let readError)):
        require(parseError == readError, "JSONReader failed with \(readError), JSONValue(parsing:) with \(parseError)")
    case (.success(let value), .success(let fields)):
        require(fields == Fields(value), "JSONReader read other values than JSONValue(parsing:) holds")
    default:
        require(false, "JSONReader and JSONValue(parsing:) disagree on whether the input is JSON")
    }
    guard case .success(let value) = parsed else { return 0 }
    touch(value)
    var writer = JSONWriter()
    write(value, to: &writer)
    let text = writer.text
    guard let again = try? JSONValue(parsing: Data(text.utf8)) else {
        require(false, "JSONWriter's text of a parsed value does not parse: \(text.prefix(200))")
        return 0
    }
    require(comparable(again) == comparable(value), "a parsed value changed on the way through JSONWriter: \(text.prefix(200))")
    return 0
}

/// Reads every accessor providers read values with.
private func touch(_ value: JSONValue) {
    _ = value.stringValue
    _ = value.doubleValue
    _ = value.intValue
    _ = value[0]
    _ = value["key"]
    if let array = value.arrayValue { for element in array.prefix(64) { touch(element) } }
    if let object = value.objectValue { for element in object.values.prefix(64) { touch(element) } }
}

private func write(_ value: JSONValue, to writer: inout JSONWriter) {
    switch value {
    case .null: writer.null()
    case .bool(let bool): writer.bool(bool)
    case .number(let number): writer.double(number)
    case .string(let string): writer.string(string)
    case .array(let elements):
        writer.array { writer in
            for element in elements { writer.element { write(element, to: &$0) } }
        }
    case .object(let members):
        writer.object { writer in
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                writer.field(named: key) { write(member, to: &$0) }
            }
        }
    }
}

/// The value as JSON text can carry it: a number JSON cannot write (an infinity from `1e999`) is `null`.
private func comparable(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number(let number) where !number.isFinite: return .null
    case .array(let elements): return .array(elements.map(comparable))
    case .object(let members): return .object(members.mapValues(comparable))
    default: return value
    }
}

/// A few members of an object, nested, as a provider reads them: through `JSONReader` or from a parsed value.
private struct Fields: Equatable {
    enum Name: String, CaseIterable, Sendable { case id, title, key, data, items, images, url }

    static let names = JSONFields<Name>()

    var isObject = false
    var id: JSONValue?
    var title: String?
    var key: String?
    var data: [Fields] = []
    var items: [Fields]?
    var url: JSONValue?

    init(reading reader: inout JSONReader) throws(JSONParseError) {
        var fields = Fields()
        fields.isObject = try reader.readObject(Self.names) { reader, name throws(JSONParseError) in
            switch name {
            case .id: fields.id = try reader.readValue()
            case .title: fields.title = try reader.readString()
            case .key: fields.key = try reader.readString()
            case .data: fields.data = [try Fields(reading: &reader)]
            case .items:
                var items: [Fields] = []
                fields.items = try reader.readArray { reader throws(JSONParseError) in items.append(try Fields(reading: &reader)) } ? items : nil
            case .images, nil: break  // skipped, and still checked
            case .url: fields.url = try reader.readValue()
            }
        }
        self = fields
    }

    init(_ value: JSONValue) {
        guard let object = value.objectValue else { return }
        isObject = true
        id = object["id"]
        if case .string(let text) = object["title"] { title = text }
        if case .string(let text) = object["key"] { key = text }
        data = object["data"].map { [Fields($0)] } ?? []
        items = object["items"]?.arrayValue?.map(Fields.init)
        url = object["url"]
    }

    private init() {}
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
