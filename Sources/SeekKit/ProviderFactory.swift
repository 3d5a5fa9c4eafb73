import Foundation
import SeekCore

/// How the composition root builds a provider from the process's settings and shared transport, and the
/// policy the provider declares for itself: the session names no provider's limits, ratings or recordings.
public struct ProviderFactory: Sendable {
    public let id: String
    public let make: @Sendable (ProviderEnvironment) throws -> any SearchProvider
    /// The pace the service's own etiquette asks for; the provider's transport keeps to it unless a
    /// setting (`SEEK_<ID>_RATE_LIMIT`, `providers.<id>.rateLimit`) says otherwise. Nil: no limit.
    public let defaultRateLimit: RateLimit?
    /// The content ratings the provider filters by (`g`, `pg`…); a call may ask for any rating some
    /// registered provider declares, and for no other.
    public let contentRatings: Set<String>
    /// What `--demo` serves in place of the service, if anything.
    public let demo: ProviderDemo?

    public init(
        id: String, defaultRateLimit: RateLimit? = nil, contentRatings: Set<String> = [], demo: ProviderDemo? = nil,
        make: @escaping @Sendable (ProviderEnvironment) throws -> any SearchProvider
    ) {
        self.id = id
        self.defaultRateLimit = defaultRateLimit
        self.contentRatings = contentRatings
        self.demo = demo
        self.make = make
    }
}

/// What a provider is built from: settings (environment over config file) and the shared HTTP transport.
public struct ProviderEnvironment: Sendable {
    public let settings: Settings
    public let transport: any HTTPTransport

    public init(settings: Settings, transport: any HTTPTransport) {
        self.settings = settings
        self.transport = transport
    }
}

// MARK: Demo mode

/// A provider's part of `--demo`: recorded answers served on loopback under `/<provider id>`, and the
/// settings that point the provider there. Demo mode serves whatever each registered provider declares.
public struct ProviderDemo: Sendable {
    /// The settings demo mode sets, by variable name (base URLs, the stand-in key).
    public var settings: [String: DemoSetting]
    /// Which request path answers with what. Paths are under the provider's own prefix (`/search.json`
    /// for `/openlibrary/search.json`); one ending in `*` matches every path starting with what precedes it.
    public var routes: [DemoRoute]
    /// The text of a recording, by file name: the files the provider compiled in (its `EmbeddedFiles`).
    public var recording: @Sendable (String) -> String?
    /// Queries the recordings answer (`"the lord of the rings"`): what the demo banner and README offer a
    /// reader to try, so a demo never leaves them guessing which searches have recorded answers.
    public var sampleQueries: [String]

    public init(
        settings: [String: DemoSetting], routes: [DemoRoute], sampleQueries: [String] = [],
        recording: @escaping @Sendable (String) -> String?
    ) {
        self.settings = settings
        self.routes = routes
        self.sampleQueries = sampleQueries
        self.recording = recording
    }

    /// The words a detail built from a recorded search answer (no recording of its own) starts its
    /// description with on the demo server; `lifted(_:)` moves them to the detail's `note`, so a reader
    /// knows it is not the service's record and never reads them as the book's description.
    public static let synthesisNotice = "demo: built from the recorded search answer (no recording of this record)."

    /// The note a detail built from a recorded search answer carries, in a reader's words.
    public static let synthesisNote = "Demo: this record is built from a recorded search answer; the source's full record was not recorded."

    /// `detail` with a leading `synthesisNotice` taken out of its description and said in its `note`
    /// instead (`SanitizingMiddleware` does it for every detail); any other detail as it is.
    public static func lifted(_ detail: ItemDetail) -> ItemDetail {
        guard let description = detail.description, description.hasPrefix(synthesisNotice) else { return detail }
        var lifted = detail
        let rest = description.dropFirst(synthesisNotice.count).trimmingCharacters(in: .whitespacesAndNewlines)
        lifted.description = rest.isEmpty ? nil : rest
        lifted.note = synthesisNote
        return lifted
    }
}

/// The value demo mode gives a setting.
public enum DemoSetting: Sendable, Hashable {
    /// The demo server's URL for the provider, with `path` appended (`""` for the provider's base URL).
    case url(path: String)
    /// A key that is no one's: keys are redacted from everything shown, so it is a word no upstream text holds.
    case standInKey
    /// This value as it is: the service's own site for links (`https://openlibrary.org`), `none`.
    case text(String)
}

/// One route of a provider's demo: a request path and what answers it.
public struct DemoRoute: Sendable {
    public var path: String
    public var answer: @Sendable (DemoRequest) -> DemoAnswer

    public init(_ path: String, answer: @escaping @Sendable (DemoRequest) -> DemoAnswer) {
        self.path = path
        self.answer = answer
    }

    /// A route that always answers `answer`.
    public init(_ path: String, _ answer: DemoAnswer) {
        self.init(path) { _ in answer }
    }
}

/// A request demo mode received for a provider.
public struct DemoRequest: Sendable {
    /// The path under the provider's prefix (`/works/OL45804W.json`).
    public var path: String
    /// The query parameters, decoded; the first of a repeated name.
    public var query: [String: String]

    public init(path: String, query: [String: String] = [:]) {
        self.path = path
        self.query = query
    }

    public func queryValue(_ name: String) -> String? { query[name] }

    /// The last path segment without `.json` (`OL45804W` from `/works/OL45804W.json`).
    public var lastSegment: String {
        var last = String(path.split(separator: "/").last ?? "")
        if last.hasSuffix(".json") { last.removeLast(5) }
        return last
    }

    /// A query parameter as a whole number, when it is one.
    public func integer(_ name: String) -> Int? { query[name].flatMap { Int($0) } }
}

/// What demo mode answers: a status and a JSON body.
public struct DemoAnswer: Sendable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int = 200, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// `text` as the body.
    public static func json(_ text: String, status: Int = 200) -> DemoAnswer {
        DemoAnswer(status: status, body: Array(text.utf8))
    }

    /// A recording, byte for byte; a 500 naming it when it is missing (a build that lost a file).
    public static func recording(_ text: String?, named name: String) -> DemoAnswer {
        guard let text else { return .json(#"{"error":"missing demo recording \#(name)"}"#, status: 500) }
        return DemoAnswer(body: Array(text.utf8))
    }

    /// A JSON object written out (for records a demo builds from a recorded search answer).
    public static func object(_ object: [String: Any], status: Int = 200) -> DemoAnswer {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else {
            return .json(#"{"error":"demo record could not be written"}"#, status: 500)
        }
        return DemoAnswer(status: status, body: Array(data))
    }

    /// The recording with the list under `key` cut to `limit` entries from `offset`, as the API pages it.
    public static func sliced(_ text: String?, named name: String, key: String, offset: Int, limit: Int) -> DemoAnswer {
        guard let text, var object = ProviderDemo.object(text), let list = object[key] as? [Any] else {
            return recording(text, named: name)
        }
        object[key] = Array(list.dropFirst(max(0, offset)).prefix(max(0, limit)))
        return .object(object)
    }
}

extension ProviderDemo {
    /// A recording as a JSON object, when it is one.
    public static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// The first entry of the list under `key` that `matches`, across the recordings `texts` in order.
    public static func entry(in texts: [String?], key: String, where matches: ([String: Any]) -> Bool) -> [String: Any]? {
        for text in texts {
            guard let text, let list = object(text)?[key] as? [[String: Any]] else { continue }
            if let found = list.first(where: matches) { return found }
        }
        return nil
    }

    /// `synthesisNotice`, then the recorded text it stands before (if any).
    public static func noted(_ text: String?) -> String {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return synthesisNotice }
        return synthesisNotice + " " + text
    }
}
