import Foundation
import SeekCore

/// `--demo`: the real providers against recorded real responses served on loopback.
enum DemoMode {
    /// Runs `body` with environment overrides that point every provider at the demo server.
    @discardableResult
    static func run<T: Sendable>(enabled: Bool, _ body: ([String: String]) async throws -> T) async throws -> T {
        guard enabled else { return try await body([:]) }
        throw CLIError.usage("--demo is not available yet")
    }
}
