import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback

/// Small images of the project's own: just enough header for the signature and size readers.
enum SampleImages {
    /// A baseline JPEG: SOI, a JFIF APP0 segment, an SOF0 frame header with the size, then filler.
    static func jpeg(width: Int = 120, height: Int = 180, filler: Int = 2000, seed: UInt8 = 0) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x03,
                  0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        bytes += (0..<filler).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
        return Data(bytes)
    }

    /// A PNG signature and IHDR chunk.
    static func png(width: Int, height: Int) -> Data {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8)
            + be32(width) + be32(height) + [0x08, 0x06, 0x00, 0x00, 0x00] + [0, 0, 0, 0]
        return Data(bytes)
    }

    /// A GIF89a header with its logical screen size.
    static func gif(width: Int, height: Int, filler: Int = 100) -> Data {
        let bytes: [UInt8] = Array("GIF89a".utf8) + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
            + [0xF7, 0x00, 0x00] + Array(repeating: 0x2A, count: filler)
        return Data(bytes)
    }

    /// A lossy WebP (`VP8 `) header.
    static func webp(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBP".utf8) + Array("VP8 ".utf8)
        bytes += [0x18, 0x00, 0x00, 0x00, 0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A]
        bytes += [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
        bytes += Array(repeating: 0, count: 16)
        return Data(bytes)
    }

    static let html = Data("<!DOCTYPE html><html><body>Service unavailable</body></html>".utf8)
}

/// A clock the test moves by hand, for TTLs and last-access order.
final class ManualClock: Sendable {
    private let current: NIOLockedValueBox<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = NIOLockedValueBox(start) }
    func now() -> Date { current.withLockedValue { $0 } }
    func advance(by seconds: TimeInterval) { current.withLockedValue { $0 += seconds } }
}

/// An `HTTPTransport` that answers every request with one response after a delay — or, when gated,
/// only once `release()` is called — and counts requests and cancelled requests.
final class CountingTransport: HTTPTransport {
    private let state = NIOLockedValueBox((requests: 0, cancellations: 0, released: false))
    let response: HTTPResponse
    let delay: Duration
    let gated: Bool

    init(body: Data = SampleImages.jpeg(), status: Int = 200, delay: Duration = .zero, gated: Bool = false) {
        self.response = HTTPResponse(status: status, headers: ["Content-Type": "image/jpeg"], body: body)
        self.delay = delay
        self.gated = gated
    }

    var requests: Int { state.withLockedValue { $0.requests } }
    var cancellations: Int { state.withLockedValue { $0.cancellations } }

    /// Lets gated requests answer.
    func release() { state.withLockedValue { $0.released = true } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        state.withLockedValue { $0.requests += 1 }
        do {
            if delay > .zero { try await Task.sleep(for: delay) }
            while gated, !state.withLockedValue({ $0.released }) {
                try await Task.sleep(for: .milliseconds(5))
            }
        } catch {
            state.withLockedValue { $0.cancellations += 1 }
            throw SeekError(.cancelled, detail: request.url.absoluteString)
        }
        return response
    }
}

/// A fresh folder under the temporary directory, removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("seek-image-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    var images: URL { url.appendingPathComponent("images") }
}

/// Waits (polling) until `condition` holds or about two seconds pass.
func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<200 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// A URL from a literal the test knows to be valid.
func url(_ text: String) -> URL {
    URL(string: text) ?? URL(fileURLWithPath: "/not-a-url")
}

let sampleURL = url("https://covers.openlibrary.org/b/id/6498519-L.jpg?default=false")
