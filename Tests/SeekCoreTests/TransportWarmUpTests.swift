import Foundation
@testable import SeekCore
import Testing

@Suite("Transport warm-up on loopback")
struct TransportWarmUpTests {
    @Test("the one-shot listener answers one request with 200 and a small JSON body, as a provider would")
    func listenerAnswersOnce() async throws {
        let listener = try #require(OneShotHTTPListener())
        let transport = AsyncHTTPTransport()
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/warm-up"))
        let response = try await transport.send(HTTPRequest(url: url, timeout: .seconds(2)))
        try await transport.shutdown()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "{}")
    }

    @Test("the one-shot listener answers only once: a second request, on the kept connection or a new one, fails at once")
    func listenerServesOnlyOnce() async throws {
        let listener = try #require(OneShotHTTPListener())
        let transport = AsyncHTTPTransport()
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/warm-up"))
        _ = try await transport.send(HTTPRequest(url: url, timeout: .seconds(2)))
        let clock = ContinuousClock()
        let started = clock.now
        await #expect(throws: SeekError.self) {
            _ = try await transport.send(HTTPRequest(url: url, timeout: .seconds(2)))
        }
        #expect(clock.now - started < .seconds(1))
        try await transport.shutdown()
    }

    @Test("warmUp returns after its request, well within its own two-second limit")
    func warmUpReturns() async {
        let clock = ContinuousClock()
        let elapsed = await clock.measure { await AsyncHTTPTransport.warmUp() }
        #expect(elapsed < .seconds(2))
    }
}
