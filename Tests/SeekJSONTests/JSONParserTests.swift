import Foundation
import SeekCore
import SeekKit
import Testing

/// `JSONValue(parsing:)`: the reader providers use for loosely typed APIs.
@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    func failure(_ text: String) -> JSONParseError? {
        do {
            _ = try JSONValue(parsing: Data(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test("reads every kind of value, nested")
    func everyKind() throws {
        let value = try parse(#" { "a": [1, -2.5, 3e2, 0, -0.0, 1E-2], "b": {"c": true, "d": false, "e": null}, "f": "x" } "#)
        #expect(value == .object([
            "a": .array([.number(1), .number(-2.5), .number(300), .number(0), .number(-0.0), .number(0.01)]),
            "b": .object(["c": .bool(true), "d": .bool(false), "e": .null]),
            "f": .string("x"),
        ]))
    }

    @Test("a scalar alone is a document")
    func scalarDocument() throws {
        #expect(try parse("42") == .number(42))
        #expect(try parse(" \"text\"\n") == .string("text"))
        #expect(try parse("null") == .null)
    }

    @Test("decodes every escape, surrogate pairs included")
    func escapes() throws {
        let value = try parse(#""q\" b\\ s\/ \b\f\n\r\t é\u00e9 \u2603 \ud83d\ude00""#)
        #expect(value == .string("q\" b\\ s/ \u{08}\u{0C}\n\r\t éé ☃ 😀"))
    }

    @Test("a lone surrogate becomes U+FFFD instead of failing the page")
    func loneSurrogates() throws {
        #expect(try parse(#""a\ud83db""#) == .string("a\u{FFFD}b"))
        #expect(try parse(#""a\ude00b""#) == .string("a\u{FFFD}b"))
        #expect(try parse(#""\ud83d\u0041""#) == .string("\u{FFFD}A"))
    }

    @Test("multi-byte UTF-8 passes through unchanged")
    func utf8() throws {
        #expect(try parse(#"{"제목": "위대한 이야기"}"#) == .object(["제목": .string("위대한 이야기")]))
    }

    @Test("a UTF-8 byte-order mark is skipped")
    func byteOrderMark() throws {
        #expect(try JSONValue(parsing: Data([0xEF, 0xBB, 0xBF]) + Data("[1]".utf8)) == .array([.number(1)]))
    }

    @Test("agrees with JSONDecoder on a recorded-size GIPHY-like page")
    func agreesWithJSONDecoder() throws {
        let items = (0..<50).map { index in
            #"{"id": "g\#(index)", "title": "A \"quoted\" title \#(index)", "rating": "g", "score": \#(index).5, "#
                + #""images": {"original": {"url": "https://media.giphy.com/\#(index).gif", "width": "480"}}, "#
                + #""tags": ["a", "b", null, false]}"#
        }
        let body = Data(#"{"data": [\#(items.joined(separator: ","))], "meta": {"status": 200}}"#.utf8)
        #expect(try JSONValue(parsing: body) == JSONDecoder().decode(JSONValue.self, from: body))
    }

    @Test(
        "malformed and truncated bodies are errors that say where",
        arguments: [
            ("", "empty body"),
            ("   ", "empty body"),
            (#"{"a": 1"#, "unexpected end of data in an object"),
            (#"[1, 2"#, "unexpected end of data in an array"),
            (#"{"a" 1}"#, "expected ':' after a key"),
            (#"{a: 1}"#, "expected a quoted key"),
            (#"[1 2]"#, "expected ',' or ']' in an array"),
            (#""abc"#, "unterminated string"),
            (#""a\x""#, "invalid escape"),
            (#""\u12G4""#, "invalid hex digit"),
            (#""\u12""#, "truncated \\u escape"),
            ("\"a\u{01}b\"", "unescaped control character"),
            ("01", "leading zero"),
            ("1.", "expected a digit after '.'"),
            ("1e", "expected a digit in the exponent"),
            ("-", "expected a digit"),
            ("1e999", "number out of range"),
            ("tru", "unexpected end of data"),
            ("trux", "invalid literal"),
            ("{} {}", "unexpected data after the JSON value"),
            ("<html>", "unexpected character '<'"),
        ])
    func malformed(text: String, reason: String) {
        let error = failure(text)
        #expect(error?.reason.contains(reason) == true, "\(text): \(String(describing: error))")
    }

    @Test("the error's offset points at the problem")
    func offset() {
        #expect(failure(#"{"a": [1, 2, }"#)?.offset == 13)
        #expect(failure(#"{"a": 1} x"#)?.description == "unexpected data after the JSON value at byte 9")
    }

    @Test("nesting past the limit is an error, not a stack overflow")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(failure(deep)?.reason.contains("nested deeper than 512 levels") == true)
        let fine = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try parse(fine) }
    }

    @Test("a provider's malformed body is .undecodable naming the provider and the cause")
    func providerClientError() throws {
        let client = ProviderClient(provider: "testprov", transport: NoTransport())
        let response = HTTPResponse(status: 200, body: Data(#"{"data": [1, 2"#.utf8))
        #expect {
            try client.decode(JSONValue.self, from: response)
        } throws: { error in
            guard let seek = error as? SeekError, seek.kind == .undecodable else { return false }
            return seek.description.hasPrefix("testprov: undecodable response")
                && seek.description.contains("malformed JSON: unexpected end of data in an array at byte 14")
        }
    }
}

/// A transport that is never called.
private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw SeekError(.network) }
}
