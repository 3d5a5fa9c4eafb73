import Foundation
import FuzzSupport
import SeekKit

/// `JSONValue(parsing:)` on any bytes: a value or a `JSONParseError`, never a crash. A value it parses,
/// written back as JSON text with `JSONWriter`, parses again to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let value = try? JSONValue(parsing: input.data) else { return 0 }
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

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
