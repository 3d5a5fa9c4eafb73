import Foundation
import NIOConcurrencyHelpers
import SeekCore

/// Cursors kept by the server, handed out as short URL-safe tokens: a `SearchCursor` grows with every
/// item it has shown, and infinite scroll puts the cursor in a URL that proxies may cut. A store never
/// fails a search: one that cannot keep a cursor where it should keeps it in memory.
public protocol CursorStore: Sendable {
    /// Keeps `cursor` and returns its token (22 URL-safe characters).
    func token(for cursor: SearchCursor) async -> String
    /// The cursor `token` stands for, if it is one of the kept ones.
    func cursor(for token: String) async -> SearchCursor?
}

extension CursorStore {
    /// A new random token: 16 bytes, base64url without padding.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The embedded default: the newest `capacity` cursors in this process's memory; an older token is no
/// longer valid (400, as a forged one).
public final class MemoryCursorStore: CursorStore {
    private struct State {
        var cursors: [String: SearchCursor] = [:]
        /// Tokens oldest first, to forget the oldest when full.
        var order: [String] = []
    }

    public let capacity: Int
    private let state = NIOLockedValueBox(State())

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    public func token(for cursor: SearchCursor) async -> String {
        let token = Self.newToken()
        keep(cursor, as: token)
        return token
    }

    public func cursor(for token: String) async -> SearchCursor? {
        state.withLockedValue { $0.cursors[token] }
    }

    /// Keeps `cursor` under `token`, forgetting the oldest past the capacity.
    public func keep(_ cursor: SearchCursor, as token: String) {
        state.withLockedValue { state in
            if state.cursors.updateValue(cursor, forKey: token) == nil { state.order.append(token) }
            if state.order.count > capacity {
                let dropped = state.order.count - capacity
                for old in state.order.prefix(dropped) { state.cursors[old] = nil }
                state.order.removeFirst(dropped)
            }
        }
    }
}
