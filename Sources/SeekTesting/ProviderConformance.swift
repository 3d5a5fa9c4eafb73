import Foundation
import SeekKit
import SeekHTTPClient
import SeekCore
import SeekLoopback

/// Recorded responses to serve for one step of a conformance run: routes installed on the fixture server.
public struct ConformanceRecording: Sendable {
    public let install: @Sendable (FixtureServer) throws -> Void

    public init(_ install: @escaping @Sendable (FixtureServer) throws -> Void) {
        self.install = install
    }

    /// Path → JSON text, served with 200. A path ending in `*` is a prefix.
    public static func json(_ routes: [String: String]) -> ConformanceRecording {
        ConformanceRecording { server in
            for (path, body) in routes { server.route(path, .json(body)) }
        }
    }

    /// Path → any response.
    public static func responses(_ routes: [String: FixtureResponse]) -> ConformanceRecording {
        ConformanceRecording { server in
            for (path, response) in routes { server.route(path, response) }
        }
    }

    /// Path → a file's contents (e.g. a recorded real response), served with 200.
    public static func files(_ routes: [String: URL]) -> ConformanceRecording {
        ConformanceRecording { server in
            for (path, file) in routes { server.route(path, try .file(file.path)) }
        }
    }

    /// Both recordings; the right one wins where they share a path.
    public static func + (lhs: ConformanceRecording, rhs: ConformanceRecording) -> ConformanceRecording {
        ConformanceRecording { server in
            try lhs.install(server)
            try rhs.install(server)
        }
    }
}

/// An error response the provider must turn into a typed error, e.g. the API's own 401 body.
public struct ConformanceErrorCase: Sendable {
    /// What to call while the recording is served.
    public enum Call: Sendable {
        case search(String)
        case detail(ItemID)
        case trending
    }

    /// What the error must be.
    public enum Expectation: Sendable, CustomStringConvertible {
        /// Any `SeekError` naming the provider.
        case anyError
        /// One whose provider status (`unauthorized`, `rateLimited`, …) is this.
        case status(ProviderStatus)
        /// Exactly this kind.
        case kind(SeekError.Kind)

        public var description: String {
            switch self {
            case .anyError: return "a SeekError"
            case .status(let status): return "status \(status.rawValue)"
            case .kind(let kind): return "kind \(kind)"
            }
        }

        func accepts(_ error: SeekError) -> Bool {
            switch self {
            case .anyError: return true
            case .status(let status): return ProviderStatus(error: error) == status
            case .kind(let kind): return error.kind == kind
            }
        }
    }

    public var name: String
    public var call: Call
    public var recording: ConformanceRecording
    public var expect: Expectation

    public init(_ name: String, call: Call, recording: ConformanceRecording, expect: Expectation = .anyError) {
        self.name = name
        self.call = call
        self.recording = recording
        self.expect = expect
    }
}

/// The outcome of a conformance run: every check, with what went wrong in each.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    /// One named check and its failures (none when it passed); `skipped` says why it did not run.
    public struct Check: Sendable {
        public let name: String
        public var failures: [String]
        public var skipped: String?
    }

    public let provider: String
    public internal(set) var checks: [Check] = []

    /// Every failure as `check: what went wrong`.
    public var failures: [String] {
        checks.flatMap { check in check.failures.map { "\(check.name): \($0)" } }
    }

    public var passed: Bool { failures.isEmpty }

    public var description: String {
        var lines = ["conformance of \(provider): \(passed ? "passed" : "\(failures.count) failure(s)")"]
        for check in checks {
            if let skipped = check.skipped {
                lines.append("  - \(check.name): skipped (\(skipped))")
            } else if check.failures.isEmpty {
                lines.append("  ✓ \(check.name)")
            } else {
                lines.append("  ✗ \(check.name)")
                lines += check.failures.map { "      \($0)" }
            }
        }
        return lines.joined(separator: "\n")
    }

    mutating func record(_ name: String, _ failures: [String], skipped: String? = nil) {
        checks.append(Check(name: name, failures: failures, skipped: skipped))
    }
}

/// Thrown by `ProviderConformance.verify()` when a check fails; its description is the whole report.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    public let report: ConformanceReport
    public var description: String { report.description }
}

/// The provider conformance kit: runs a provider against your recorded responses, on a loopback
/// fixture server, and checks what every provider must do:
///
/// - search decodes the recording into items of this provider and its kinds, with titles;
/// - every id round-trips through its `provider:value` text (and through JSON);
/// - detail of a search result works, asked with the id parsed back from that text;
/// - every image URL (and item URL) is absolute http(s);
/// - an empty result is an empty page, not an error;
/// - the API's error bodies, and malformed bodies (bad JSON, HTML, empty, truncated, HTTP 500, JSON of
///   the wrong shape) on every request a search or detail makes, give a `SeekError` naming the provider —
///   never another error type, never a hang; the first request of a call must fail, later best-effort
///   ones may be skipped;
/// - capabilities the descriptor leaves out throw `.unsupported`; no error text contains a secret.
///
/// Framework-neutral: `run()` returns a report (`#expect(report.passed, "\(report)")`), `verify()` throws.
/// A provider that traps (force unwrap, out-of-range index) ends the test process, which fails CI too.
public struct ProviderConformance: Sendable {
    /// Builds the provider under test against the fixture server's base URL with the given transport.
    public typealias Builder = @Sendable (_ server: URL, _ transport: any HTTPTransport) throws -> any SearchProvider

    public var makeProvider: Builder
    /// A query the `search` recording answers with at least one item.
    public var query: String
    /// Routes for the search and for the detail of the chosen result (and anything they fetch).
    public var search: ConformanceRecording
    /// A query the `emptySearch` recording answers with no results.
    public var emptyQuery: String
    public var emptySearch: ConformanceRecording
    /// Routes for `trending(limit:)`, when the provider has that capability.
    public var trending: ConformanceRecording?
    public var errorCases: [ConformanceErrorCase]
    /// Which search result to ask the detail of.
    public var detailIndex: Int
    /// Values (API keys) that must never appear in an error.
    public var secrets: [String]
    /// How long one call may take before the kit reports a hang.
    public var callTimeout: Duration

    public init(
        provider makeProvider: @escaping Builder, query: String, search: ConformanceRecording,
        emptyQuery: String = "zzqxj no such thing", emptySearch: ConformanceRecording,
        trending: ConformanceRecording? = nil, errors: [ConformanceErrorCase] = [], detailIndex: Int = 0,
        secrets: [String] = [], callTimeout: Duration = .seconds(10)
    ) {
        self.makeProvider = makeProvider
        self.query = query
        self.search = search
        self.emptyQuery = emptyQuery
        self.emptySearch = emptySearch
        self.trending = trending
        self.errorCases = errors
        self.detailIndex = detailIndex
        self.secrets = secrets
        self.callTimeout = callTimeout
    }

    /// The same, building the provider as the composition root does: `factory` with settings made of
    /// `environment(serverBaseURL)` (e.g. `["SEEK_ITBOOK_URL": "\(base)/itbook"]`).
    public init(
        factory: ProviderFactory, environment: @escaping @Sendable (URL) -> [String: String], query: String,
        search: ConformanceRecording, emptyQuery: String = "zzqxj no such thing", emptySearch: ConformanceRecording,
        trending: ConformanceRecording? = nil, errors: [ConformanceErrorCase] = [], detailIndex: Int = 0,
        secrets: [String] = [], callTimeout: Duration = .seconds(10)
    ) {
        self.init(
            provider: { base, transport in
                try factory.make(ProviderEnvironment(settings: Settings(environment: environment(base)), transport: transport))
            },
            query: query, search: search, emptyQuery: emptyQuery, emptySearch: emptySearch, trending: trending,
            errors: errors, detailIndex: detailIndex, secrets: secrets, callTimeout: callTimeout)
    }

    /// Throws `ConformanceFailure` (whose description lists every failure) unless every check passes.
    public func verify() async throws {
        let report = await run()
        if !report.passed { throw ConformanceFailure(report: report) }
    }

    /// Runs every check and reports them all; never throws.
    public func run() async -> ConformanceReport {
        let server: FixtureServer
        do {
            server = try await FixtureServer.start()
        } catch {
            var report = ConformanceReport(provider: "?")
            report.record("fixture server", ["could not start: \(error)"])
            return report
        }
        let transport = AsyncHTTPTransport()
        let report = await run(server: server, transport: transport)
        try? await transport.shutdown()
        try? await server.shutdown()
        return report
    }

    private func run(server: FixtureServer, transport: AsyncHTTPTransport) async -> ConformanceReport {
        let provider: any SearchProvider
        do {
            provider = try makeProvider(server.baseURL, transport)
        } catch {
            var report = ConformanceReport(provider: "?")
            report.record("build", ["the provider could not be built: \(error)"])
            return report
        }
        let run = ConformanceRun(kit: self, provider: provider, server: server)
        return await run.all()
    }
}

/// One run of the checks against one provider instance.
private struct ConformanceRun {
    let kit: ProviderConformance
    let provider: any SearchProvider
    let server: FixtureServer
    var id: String { provider.descriptor.id }

    /// A body that is not what any API sends, and the name a failure gives it.
    struct Mangling {
        let name: String
        let fault: FixtureFault
        /// Whether the first request of a call must then fail (wrong-shaped JSON may read as an empty page).
        let mustFail: Bool
    }

    static let manglings: [Mangling] = [
        Mangling(name: "malformed JSON", fault: .malformedJSON, mustFail: true),
        Mangling(name: "an HTML page", fault: .html, mustFail: true),
        Mangling(name: "an empty body", fault: .empty, mustFail: true),
        Mangling(name: "a truncated body", fault: .truncated, mustFail: true),
        Mangling(name: "HTTP 500", fault: .status(500, body: "Internal Server Error"), mustFail: true),
    ] + ["[]", "{}", "null", "\"text\"", "12345", #"{"unexpected": {"nested": [1, "two", null, {}]}}"#].map { body in
        Mangling(name: "the JSON \(body)", fault: .status(200, body: body, headers: [("Content-Type", "application/json")]), mustFail: false)
    }

    func all() async -> ConformanceReport {
        var report = ConformanceReport(provider: id)
        report.record("descriptor", descriptorFailures())

        // Search.
        var searchPaths: [String] = []
        var items: [Item] = []
        var failures: [String] = []
        switch await serving(kit.search, { try await provider.search(SearchRequest(query: kit.query)) }) {
        case .success(let page, let paths):
            searchPaths = paths
            items = page.items
            if items.isEmpty { failures.append("the recorded search for '\(kit.query)' gave no items") }
            failures += items.flatMap(itemFailures)
        case .failure(let message):
            failures.append("search for '\(kit.query)' failed: \(message)")
        }
        report.record("search decodes", failures)
        report.record("ids round-trip through provider:value", items.flatMap(roundTripFailures))
        report.record("image URLs are absolute http(s)", items.flatMap(linkFailures))

        // Detail.
        var detailPaths: [String] = []
        var detailID: ItemID?
        if !provider.descriptor.capabilities.contains(.detail) {
            report.record("detail of a search result", await unsupported("detail") {
                _ = try await provider.detail(ItemID(provider: id, value: "x"))
            })
        } else if items.isEmpty {
            report.record("detail of a search result", [], skipped: "the search gave no items")
        } else if !items.indices.contains(kit.detailIndex) {
            report.record("detail of a search result", ["detailIndex \(kit.detailIndex) is past the \(items.count) results"])
        } else {
            let text = items[kit.detailIndex].id.description
            var failures: [String] = []
            if let parsed = ItemID(parsing: text) {
                detailID = parsed
                switch await serving(kit.search, { try await provider.detail(parsed) }) {
                case .success(let detail, let paths):
                    detailPaths = paths
                    if detail.item.id != parsed { failures.append("detail of \(text) returned the item \(detail.item.id)") }
                    failures += itemFailures(detail.item) + linkFailures(detail.item)
                case .failure(let message):
                    failures.append("detail of \(text) failed: \(message)")
                }
            } else {
                failures.append("'\(text)' does not parse as provider:value")
            }
            report.record("detail of a search result", failures)
        }

        // Empty result.
        switch await serving(kit.emptySearch, { try await provider.search(SearchRequest(query: kit.emptyQuery)) }) {
        case .success(let page, _):
            var failures: [String] = []
            if !page.items.isEmpty { failures.append("the empty recording gave \(page.items.count) item(s)") }
            if let next = page.next { failures.append("an empty page offers a next page (\(next))") }
            report.record("an empty result is empty, not an error", failures)
        case .failure(let message):
            report.record("an empty result is empty, not an error", ["search for '\(kit.emptyQuery)' failed: \(message)"])
        }

        // Optional capabilities.
        if provider.descriptor.capabilities.contains(.trending) {
            if let recording = kit.trending {
                switch await serving(recording, { try await provider.trending(limit: 10) }) {
                case .success(let page, _):
                    let failures = page.items.flatMap { itemFailures($0) + roundTripFailures($0) + linkFailures($0) }
                    report.record("trending decodes", page.items.isEmpty ? ["the trending recording gave no items"] : failures)
                case .failure(let message):
                    report.record("trending decodes", ["trending failed: \(message)"])
                }
            } else {
                report.record("trending decodes", [], skipped: "no trending recording given")
            }
        } else {
            report.record("trending is unsupported", await unsupported("trending") { _ = try await provider.trending(limit: 10) })
        }
        if !provider.descriptor.capabilities.contains(.suggest) {
            report.record("suggest is unsupported", await unsupported("suggest") { _ = try await provider.suggest("ab", limit: 5) })
        }

        // Error bodies of the API.
        var errorFailures: [String] = []
        for errorCase in kit.errorCases {
            let provider = self.provider
            let outcome = await erroring(errorCase.recording) {
                switch errorCase.call {
                case .search(let query): _ = try await provider.search(SearchRequest(query: query))
                case .detail(let id): _ = try await provider.detail(id)
                case .trending: _ = try await provider.trending(limit: 10)
                }
            }
            errorFailures += typedErrorFailures(outcome, what: errorCase.name, expect: errorCase.expect, mustFail: true)
        }
        report.record(
            "error bodies give typed errors", errorFailures,
            skipped: kit.errorCases.isEmpty ? "no error recordings given" : nil)

        // Malformed bodies on every request of a search and of a detail.
        var malformed: [String] = []
        for (index, path) in searchPaths.enumerated() {
            malformed += await mangled(path: path, first: index == 0, call: "search") {
                _ = try await provider.search(SearchRequest(query: kit.query))
            }
        }
        if let detailID {
            for (index, path) in detailPaths.enumerated() {
                malformed += await mangled(path: path, first: index == 0, call: "detail") {
                    _ = try await provider.detail(detailID)
                }
            }
        }
        report.record(
            "malformed bodies give typed errors", malformed,
            skipped: searchPaths.isEmpty ? "the search made no request to mangle" : nil)
        return report
    }

    // MARK: Calls

    /// A call expected to succeed: its value and the distinct paths it requested, or what went wrong.
    enum Served<Value> {
        case success(Value, paths: [String])
        case failure(String)
    }

    /// A call that may fail: success, a `SeekError`, or a message for anything else (another error type, a hang).
    enum Outcome {
        case success
        case typed(SeekError)
        case failure(String)
    }

    /// Serves `recording` alone, runs `call` under the kit's deadline, and notes the distinct paths it requested.
    func serving<Value: Sendable>(
        _ recording: ConformanceRecording, _ call: @escaping @Sendable () async throws -> Value
    ) async -> Served<Value> {
        server.removeAllRoutes()
        do {
            try recording.install(server)
        } catch {
            return .failure("the recording could not be installed: \(error)")
        }
        let timeout = kit.callTimeout
        let before = server.requests.count
        let value: Value
        do {
            value = try await withThrowingTaskGroup(of: Value?.self) { group in
                group.addTask { try await call() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else { throw KitTimeout() }
                return value
            }
        } catch is KitTimeout {
            return .failure("no answer within \(timeout)")
        } catch let error as SeekError {
            return .failure("\(error)")
        } catch {
            return .failure("threw \(type(of: error)), not a SeekError: \(error)")
        }
        var paths: [String] = []
        for request in server.requests.dropFirst(before) where !paths.contains(request.path) {
            paths.append(request.path)
        }
        return .success(value, paths: paths)
    }

    /// Like `serving`, but keeps the typed error for inspection.
    func erroring(
        _ recording: ConformanceRecording, then extra: ((FixtureServer) -> Void)? = nil,
        _ call: @escaping @Sendable () async throws -> Void
    ) async -> Outcome {
        server.removeAllRoutes()
        do {
            try recording.install(server)
        } catch {
            return .failure("the recording could not be installed: \(error)")
        }
        extra?(server)
        let timeout = kit.callTimeout
        do {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await call()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return false
                }
                defer { group.cancelAll() }
                guard let finished = try await group.next(), finished else { throw KitTimeout() }
            }
            return .success
        } catch is KitTimeout {
            return .failure("no answer within \(kit.callTimeout)")
        } catch let error as SeekError {
            return .typed(error)
        } catch {
            return .failure("threw \(type(of: error)), not a SeekError: \(error)")
        }
    }

    struct KitTimeout: Error {}

    // MARK: Checks

    func descriptorFailures() -> [String] {
        var failures: [String] = []
        if ItemID(parsing: "\(id):x")?.provider != id {
            failures.append("the id '\(id)' does not survive provider:value parsing (use lowercase a-z, 0-9, - and _)")
        }
        if provider.descriptor.kinds.isEmpty { failures.append("the descriptor lists no kinds") }
        if !provider.descriptor.capabilities.contains(.search) { failures.append("the descriptor lacks the search capability") }
        failures += secretFailures(provider.endpoint, where: "endpoint")
        return failures
    }

    func itemFailures(_ item: Item) -> [String] {
        var failures: [String] = []
        if item.id.provider != id { failures.append("\(item.id) belongs to '\(item.id.provider)', not '\(id)'") }
        if !provider.descriptor.kinds.contains(item.kind) {
            failures.append("\(item.id) is a \(item.kind), which the descriptor does not list")
        }
        if item.title.trimmed().isEmpty { failures.append("\(item.id) has an empty title") }
        return failures
    }

    func roundTripFailures(_ item: Item) -> [String] {
        let text = item.id.description
        guard let parsed = ItemID(parsing: text), parsed == item.id else {
            return ["\(text) does not parse back to the same id (provider '\(item.id.provider)', value '\(item.id.value)')"]
        }
        let encoded = try? JSONEncoder().encode(item)
        guard let encoded, let decoded = try? JSONDecoder().decode(Item.self, from: encoded), decoded.id == item.id else {
            return ["\(text) does not survive a JSON round trip of its item"]
        }
        return []
    }

    func linkFailures(_ item: Item) -> [String] {
        var failures: [String] = []
        for size in ImageSize.allCases {
            if let reference = item.images[size], !Self.isAbsoluteHTTP(reference.url) {
                failures.append("\(item.id) image (\(size)) '\(reference.url.absoluteString)' is not absolute http(s)")
            }
            if let url = provider.imageURL(for: item, size: size), !Self.isAbsoluteHTTP(url) {
                failures.append("imageURL(for: \(item.id), size: \(size)) '\(url.absoluteString)' is not absolute http(s)")
            }
        }
        if let url = item.url, !Self.isAbsoluteHTTP(url) {
            failures.append("\(item.id) url '\(url.absoluteString)' is not absolute http(s)")
        }
        return failures
    }

    static func isAbsoluteHTTP(_ url: URL) -> Bool {
        let absolute = url.absoluteURL
        guard let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = absolute.host, !host.isEmpty
        else { return false }
        return true
    }

    func secretFailures(_ text: String, where place: String) -> [String] {
        kit.secrets.filter { !$0.isEmpty && text.contains($0) }.map { _ in "\(place) contains a secret: \(text)" }
    }

    /// Calling a capability the descriptor leaves out must throw `.unsupported`.
    func unsupported(_ capability: String, _ call: @escaping @Sendable () async throws -> Void) async -> [String] {
        let outcome = await erroring(ConformanceRecording { _ in }, call)
        switch outcome {
        case .typed(let error):
            if case .unsupported = error.kind { return [] }
            return ["the descriptor lacks \(capability), but calling it threw \(error) instead of .unsupported"]
        case .success:
            return ["the descriptor lacks \(capability), but calling it succeeded; add it to the capabilities"]
        case .failure(let message):
            return ["calling \(capability) (not in the descriptor) \(message)"]
        }
    }

    /// Failures of an outcome that should be a typed error of this provider.
    func typedErrorFailures(
        _ outcome: Outcome, what: String, expect: ConformanceErrorCase.Expectation, mustFail: Bool
    ) -> [String] {
        switch outcome {
        case .success:
            return mustFail ? ["\(what): the call succeeded instead of failing"] : []
        case .failure(let message):
            return ["\(what): \(message)"]
        case .typed(let error):
            var failures: [String] = []
            if error.provider != id {
                failures.append("\(what): the error names provider '\(error.provider ?? "none")', not '\(id)': \(error)")
            }
            if !expect.accepts(error) { failures.append("\(what): expected \(expect), got \(error)") }
            return failures + secretFailures(error.description, where: "\(what): the error")
        }
    }

    /// Serves the recording with `path` mangled every way the kit knows, and checks each outcome.
    func mangled(path: String, first: Bool, call: String, _ operation: @escaping @Sendable () async throws -> Void) async -> [String] {
        var failures: [String] = []
        for mangling in Self.manglings {
            let outcome = await erroring(kit.search, then: { $0.route(path, fault: mangling.fault) }, operation)
            let what = "\(call) with \(mangling.name) at \(path)"
            failures += typedErrorFailures(outcome, what: what, expect: .anyError, mustFail: first && mangling.mustFail)
        }
        return failures
    }
}
