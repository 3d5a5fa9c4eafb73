import Foundation
import SeekCore

/// A dot-separated path into a JSON document (`volumeInfo.industryIdentifiers.0.identifier`),
/// so a config file can say where a value lives without any Swift.
///
/// A numeric segment indexes an array (or names an object key made of digits); a key applied to an
/// array is applied to each element, so `authors.name` collects every author's name.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// The segments in order; empty for the document itself.
    public let segments: [String]

    /// The document itself.
    public static let root = JSONPath(validated: [])

    private init(validated segments: [String]) {
        self.segments = segments
    }

    /// Parses `text`; the empty string is the root. Throws a reason when a segment is empty, blank or
    /// written in another path language (`books[0]`, `$.books`).
    public init(parsing text: String) throws(JSONPathError) {
        guard !text.isEmpty else {
            self = .root
            return
        }
        let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (index, segment) in segments.enumerated() {
            if segment.isEmpty {
                throw JSONPathError(path: text, reason: "segment \(index + 1) is empty (two dots, or a dot at an end)")
            }
            if segment.trimmed().isEmpty || segment != segment.trimmed() {
                throw JSONPathError(path: text, reason: "segment '\(segment)' has leading or trailing spaces")
            }
            // `books[0].title` and `$.books` are other path languages; say how to write them here.
            if segment.contains("[") || segment.contains("]") || (index == 0 && segment == "$") {
                throw JSONPathError(path: text, reason: "write indexes as dot segments, e.g. 'books.0.title' (no brackets, no '$')")
            }
        }
        self.init(validated: segments)
    }

    public var description: String { segments.joined(separator: ".") }

    /// The value at this path in `document`, or nil when any step is missing.
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for segment in segments {
            guard let next = Self.step(current, segment) else { return nil }
            current = next
        }
        return current
    }

    /// One step: an index into an array, a key of an object, or a key mapped over an array's elements.
    private static func step(_ value: JSONValue, _ segment: String) -> JSONValue? {
        switch value {
        case .object(let object):
            return object[segment]
        case .array(let array):
            if let index = Int(segment), index >= 0 {
                return array.indices.contains(index) ? array[index] : nil
            }
            let mapped = array.compactMap { step($0, segment) }.flatMap { $0.arrayValue ?? [$0] }
            return mapped.isEmpty ? nil : .array(mapped)
        default:
            return nil
        }
    }
}

/// Why a JSON path could not be parsed.
public struct JSONPathError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "'\(path)' is not a valid path: \(reason)" }
}

extension JSONValue {
    /// One string where one is expected: a string, a converted number or boolean, or a list's first such value.
    public var firstString: String? {
        if case .array(let values) = self { return values.lazy.compactMap(\.firstString).first }
        return stringValue
    }

    /// Every string in this value: itself (converted) or, for a list, each element's strings.
    public var allStrings: [String] {
        switch self {
        case .array(let values): return values.flatMap(\.allStrings)
        case .object, .null: return []
        default: return stringValue.map { [$0] } ?? []
        }
    }

    /// One integer where one is expected: a number, a numeric string, or a list's first such value.
    public var firstInt: Int? {
        if case .array(let values) = self { return values.lazy.compactMap(\.firstInt).first }
        return intValue
    }
}
