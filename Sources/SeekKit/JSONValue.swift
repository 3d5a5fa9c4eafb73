import Foundation
import SeekCore

/// Any JSON value, for configuration and for tolerant reading of loosely typed APIs.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The kinds of JSON value.
    public enum Kind: Sendable, Hashable {
        case null, bool, number, string, array, object
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// A string, converting numbers and booleans.
    public var stringValue: String? {
        switch self {
        case .string(let value): return value
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .bool(let value): return String(value)
        default: return nil
        }
    }

    /// A number, converting numeric strings.
    public var doubleValue: Double? {
        switch self {
        case .number(let value): return value
        case .string(let value): return Self.plainInteger(value).map(Double.init) ?? Double(value.trimmed())
        default: return nil
        }
    }

    /// A string of 1 to 15 ASCII digits as its number (pixel sizes, ids, counts: most numeric strings
    /// APIs send), read without the general floating-point parser.
    private static func plainInteger(_ text: String) -> Int? {
        let utf8 = text.utf8
        guard (1...15).contains(utf8.count) else { return nil }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    public var intValue: Int? {
        guard let value = doubleValue, abs(value) < 9e15 else { return nil }
        return Int(checked: value)
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
