import Foundation
import SeekCore
import Testing

/// `SeekError.Kind` is a struct over a private enum (issue 51): every cause keeps its name, its
/// context and its words; `case .timeout:` still matches every timeout; a name that is not a cause
/// reads as nil, never as a guess.
@Suite("SeekError's kinds")
struct ErrorKindTests {
    /// Every cause with context, its stable name, how it prints and its cause in words: the strings
    /// an embedder, a log or a test already sees, unchanged by the move from an enum.
    static let forms: [(kind: SeekError.Kind, name: String, description: String, cause: String)] = [
        (.network, "network", "network", "network error"),
        (.timeout(seconds: 10), "timeout", "timeout(seconds: 10.0)", "timed out after 10s"),
        (.timeout(seconds: 2.5), "timeout", "timeout(seconds: 2.5)", "timed out after 2.5s"),
        (.httpStatus(502), "httpStatus", "httpStatus(502)", "HTTP 502"),
        (.rateLimited(retryAfterSeconds: 30), "rateLimited", "rateLimited(retryAfterSeconds: 30.0)", "rate limited (retry after 30s)"),
        (.rateLimited(retryAfterSeconds: nil), "rateLimited", "rateLimited", "rate limited"),
        (.unauthorized, "unauthorized", "unauthorized", "unauthorized (API key rejected)"),
        (.missingKey(variable: "SEEK_GIPHY_API_KEY"), "missingKey", #"missingKey(variable: "SEEK_GIPHY_API_KEY")"#,
         "no API key (set SEEK_GIPHY_API_KEY)"),
        (.missingKey(variable: "SEEK_CALIBRE_LIBRARY"), "missingKey", #"missingKey(variable: "SEEK_CALIBRE_LIBRARY")"#,
         "SEEK_CALIBRE_LIBRARY is not set"),
        (.notFound, "notFound", "notFound", "not found"),
        (.undecodable, "undecodable", "undecodable", "undecodable response"),
        (.bodyTooLarge(limitBytes: 1024), "bodyTooLarge", "bodyTooLarge(limitBytes: 1024)", "response larger than 1024 bytes"),
        (.unsupported(capability: "trending"), "unsupported", #"unsupported(capability: "trending")"#, "trending is not supported"),
        (.invalidInput, "invalidInput", "invalidInput", "invalid input"),
        (.suspended(until: Date(timeIntervalSince1970: 0)), "suspended", "suspended(until: 1970-01-01 00:00:00 +0000)",
         "suspended until 1970-01-01T00:00:00Z"),
        (.cancelled, "cancelled", "cancelled", "cancelled"),
        (.notRegistered(key: "HTTPTransport"), "notRegistered", #"notRegistered(key: "HTTPTransport")"#, "nothing registered for HTTPTransport"),
        (.configuration, "configuration", "configuration", "configuration error"),
    ]

    @Test("every cause keeps its name, its printed form and its words")
    func stringForms() {
        for form in Self.forms {
            #expect(form.kind.name == form.name, "\(form.kind)")
            #expect(form.kind.description == form.description)
            #expect(String(describing: form.kind) == form.description)
            #expect(SeekError(form.kind).cause == form.cause, "\(form.kind)")
        }
        // Every cause is in the table, and the table names no other.
        #expect(Set(Self.forms.map(\.name)) == Set(SeekError.Kind.allCauses.map(\.name)))
        #expect(SeekError.Kind.allCauses.map(\.name) == [
            "network", "timeout", "httpStatus", "rateLimited", "unauthorized", "missingKey", "notFound", "undecodable",
            "bodyTooLarge", "unsupported", "invalidInput", "suspended", "cancelled", "notRegistered", "configuration",
        ])
    }

    @Test("a cause's name reads back as that cause; a name that is not one is nil, whatever its case or spacing", arguments: [
        "", "Timeout", "timeout ", "time_out", "http_status", "unknown", "timeout(seconds: 10.0)",
    ])
    func unknownName(name: String) {
        #expect(SeekError.Kind(name: name) == nil)
    }

    @Test("every cause's name reads back as the cause without context")
    func namesReadBack() {
        for cause in SeekError.Kind.allCauses {
            #expect(SeekError.Kind(name: cause.name) == cause)
        }
        #expect(SeekError.Kind(name: "timeout") != .timeout(seconds: 10))
    }

    @Test("a cause without context matches the cause whatever its context; with context, only that")
    func patterns() {
        func which(_ kind: SeekError.Kind) -> String {
            switch kind {
            case .timeout(seconds: 1): "one second"
            case .timeout: "timeout"
            case .httpStatus where (kind.statusCode ?? 0) >= 500: "server"
            case .httpStatus: "client"
            case .rateLimited: "rate limited"
            default: "other"
            }
        }
        #expect(which(.timeout(seconds: 1)) == "one second")
        #expect(which(.timeout(seconds: 30)) == "timeout")
        #expect(which(.timeout) == "timeout")
        #expect(which(.httpStatus(503)) == "server")
        #expect(which(.httpStatus(418)) == "client")
        #expect(which(.rateLimited(retryAfterSeconds: 5)) == "rate limited")
        #expect(which(.network) == "other")
        #expect(which(.notFound) == "other")
        if case .suspended = SeekError.Kind.suspended(until: .distantFuture) {} else { Issue.record("a suspension did not match .suspended") }
        if case .suspended = SeekError.Kind.network { Issue.record("a network error matched .suspended") }
        if case .timeout(seconds: 1) = SeekError.Kind.timeout(seconds: 2) { Issue.record("a 2 s timeout matched one of 1 s") }
    }

    @Test("== compares the context too; a rate limit without a retry time is the cause itself")
    func equality() {
        #expect(SeekError.Kind.timeout(seconds: 1) == .timeout(seconds: 1))
        #expect(SeekError.Kind.timeout(seconds: 1) != .timeout(seconds: 2))
        #expect(SeekError.Kind.timeout(seconds: 1) != .timeout)
        #expect(SeekError.Kind.httpStatus(502) != .httpStatus(503))
        #expect(SeekError.Kind.rateLimited(retryAfterSeconds: nil) == .rateLimited)
        #expect(SeekError.Kind.network != .cancelled)
        #expect(Set(SeekError.Kind.allCauses).count == SeekError.Kind.allCauses.count)
    }

    @Test("each context is read from its own cause only")
    func accessors() {
        let until = Date(timeIntervalSince1970: 1_000)
        #expect(SeekError.Kind.timeout(seconds: 3).seconds == 3)
        #expect(SeekError.Kind.httpStatus(502).statusCode == 502)
        #expect(SeekError.Kind.rateLimited(retryAfterSeconds: 7).retryAfterSeconds == 7)
        #expect(SeekError.Kind.missingKey(variable: "SEEK_X_KEY").variable == "SEEK_X_KEY")
        #expect(SeekError.Kind.bodyTooLarge(limitBytes: 9).limitBytes == 9)
        #expect(SeekError.Kind.unsupported(capability: "detail").capability == "detail")
        #expect(SeekError.Kind.suspended(until: until).until == until)
        #expect(SeekError.Kind.notRegistered(key: "K").key == "K")
        // Another cause, or the cause without context, has none.
        #expect(SeekError.Kind.httpStatus(502).seconds == nil)
        #expect(SeekError.Kind.timeout(seconds: 3).statusCode == nil)
        #expect(SeekError.Kind.network.retryAfterSeconds == nil)
        #expect(SeekError.Kind.timeout.seconds == nil)
        #expect(SeekError.Kind.suspended.until == nil)
    }

    @Test("a cause without context still says what failed, in every form a reader or log sees")
    func causesWithoutContext() {
        let expected = [
            "timed out", "unexpected HTTP status", "rate limited", "a required setting is not set", "response too large",
            "not supported", "suspended", "nothing registered",
        ]
        let kinds: [SeekError.Kind] = [.timeout, .httpStatus, .rateLimited, .missingKey, .bodyTooLarge, .unsupported, .suspended, .notRegistered]
        #expect(kinds.map { SeekError($0).cause } == expected)
        let descriptor = ProviderDescriptor(id: "openlibrary", name: "Open Library", kinds: [.book], capabilities: [.search], paging: .page)
        #expect(SeekError(.missingKey, provider: "openlibrary").inWords(descriptor) == "Open Library needs a setting that is not set.")
        #expect(SeekError(.unsupported, provider: "openlibrary").inWords(descriptor) == "Open Library does not offer this.")
        #expect(SeekError(.suspended, provider: "openlibrary").inWords(descriptor)
            == "Open Library failed several times in a row, so Seek is not asking it for a while. Try again later.")
    }
}
