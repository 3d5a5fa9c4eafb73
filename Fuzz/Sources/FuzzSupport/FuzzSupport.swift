import CLibFuzzer
import Dispatch
import Foundation
import SeekKit
import SeekCore

/// An `HTTPTransport` that answers every request with the same response (the fuzz input as its body),
/// without a network: a provider built on it runs its whole decode-and-map path on that body.
public struct CannedTransport: HTTPTransport {
    public let response: HTTPResponse

    public init(_ response: HTTPResponse) {
        self.response = response
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // Like AsyncHTTPTransport: a body over the request's cap is refused, not returned.
        guard response.body.count <= request.maxBodyBytes else {
            throw SeekError(.bodyTooLarge(limitBytes: request.maxBodyBytes))
        }
        return response
    }
}

/// The fuzz input as libFuzzer hands it over.
public struct FuzzInput {
    public let bytes: UnsafeBufferPointer<UInt8>

    /// libFuzzer's pointer and size; no pointer is an empty input.
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    public var data: Data { Data(bytes) }

    /// The input as text; invalid UTF-8 is repaired, as `String(decoding:as:)` does for a body.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The first byte (0 for an empty input) and the rest: targets read what to do from the first byte.
    public var selector: UInt8 { bytes.first ?? 0 }

    public var rest: Data { bytes.isEmpty ? Data() : Data(bytes.dropFirst()) }
}

/// The statuses a provider target's selector byte chooses from (bits 2…4): mostly 200, then the ones
/// providers treat specially.
public let fuzzStatuses = [200, 200, 200, 200, 404, 422, 429, 503]

/// The canned response for a provider target: the status the selector's bits 2…4 choose, the body the
/// rest of the input; a 429 or 503 also carries a `Retry-After`.
public func cannedResponse(selector: UInt8, body: Data) -> HTTPResponse {
    let status = fuzzStatuses[Int(selector >> 2 & 0x07)]
    var headers = ["Content-Type": "application/json; charset=utf-8"]
    if status == 429 || status == 503 { headers["Retry-After"] = "2" }
    return HTTPResponse(status: status, headers: headers, body: body)
}

/// Runs `operation` to the end and waits for it: libFuzzer calls the target synchronously. Errors are
/// the expected outcome of most inputs; only crashes and hangs are findings.
public func runToCompletion(_ operation: @escaping @Sendable () async throws -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        do { try await operation() } catch { _ = error }
        done.signal()
    }
    done.wait()
}

/// Stops the process when `condition` is false: an invariant of the code under test does not hold, which
/// libFuzzer records as a crash with the input that broke it.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard condition() else {
        let text = "fuzz invariant failed: \(message())\n"
        FileHandle.standardError.write(Data(text.utf8))
        fatalError(text)
    }
}

/// A provider target's whole run on one input: the first byte is the selector, the rest the body of a
/// canned response whose status the selector chooses; `factory` builds the provider (as the
/// composition root does, on a `CannedTransport`) and `call` makes the selected call on it.
public func fuzzProvider(
    _ data: UnsafePointer<UInt8>?, _ size: Int, settings: Settings, factory: (UInt8) -> ProviderFactory,
    _ call: @escaping @Sendable (any SearchProvider, UInt8) async throws -> Void
) -> CInt {
    let input = FuzzInput(data, size)
    let selector = input.selector
    let made = Result { try makeProvider(factory(selector), settings: settings, response: cannedResponse(selector: selector, body: input.rest)) }
    runToCompletion { try await call(made.get(), selector) }
    return 0
}

/// `fuzzProvider` for a target with one provider.
public func fuzzProvider(
    _ data: UnsafePointer<UInt8>?, _ size: Int, settings: Settings, factory: ProviderFactory,
    _ call: @escaping @Sendable (any SearchProvider, UInt8) async throws -> Void
) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: { _ in factory }, call)
}

/// A provider built through `factory` as the composition root builds it, on a `CannedTransport`.
public func makeProvider(
    _ factory: ProviderFactory, settings: Settings, response: HTTPResponse
) throws -> any SearchProvider {
    try factory.make(ProviderEnvironment(settings: settings, transport: CannedTransport(response)))
}

/// Search requests the selector's bits 5…7 choose from: first pages of several sizes, a later page,
/// a cursor (a next offset or page), the deepest page.
public func fuzzRequest(selector: UInt8, query: String = "harbor") -> SearchRequest {
    switch selector >> 5 {
    case 0: return SearchRequest(query: query)
    case 1: return SearchRequest(query: query, limit: 1)
    case 2: return SearchRequest(query: query, limit: 50)
    case 3: return SearchRequest(query: query, page: 3, limit: 10)
    case 4: return SearchRequest(query: query, cursor: "2", limit: 20)
    case 5: return SearchRequest(query: query, limit: 100, language: "en")
    case 6: return SearchRequest(query: query, cursor: "40", limit: 20)
    default: return SearchRequest(query: query, page: SearchRequest.maxPage, limit: 1)
    }
}

/// Checks what every provider promises of a page whatever the body: only items of its own, and (for
/// the built-in providers, which cap what a server sends) at most `limit` of them.
public func checkPage(_ page: SearchPage, from provider: any SearchProvider, limit: Int?) {
    let id = provider.descriptor.id
    if let limit {
        require(page.items.count <= max(limit, 1), "\(id) returned \(page.items.count) items for a limit of \(limit)")
    }
    for item in page.items {
        require(item.id.provider == id, "\(id) returned an item of \(item.id.provider)")
    }
}

/// What libFuzzer calls with each input: a target's `LLVMFuzzerTestOneInput`.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer's driver on `target` with the process's arguments; a target's entry point returns this.
///
/// SwiftPM links an executable target with `main` defined as `<Target>_main` (so that tests can link
/// it), which keeps libFuzzer's own `main` out of the link; each target therefore defines
/// `<Target>_main` itself and hands over to libFuzzer here. The libFuzzer flags (`-runs=`, a corpus
/// directory, …) work as with any libFuzzer binary.
public func runLibFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ target: FuzzTarget
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, target)
}
