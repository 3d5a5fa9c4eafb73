import Foundation
import NIOConcurrencyHelpers
import SeekCore

/// Cursors kept on the server, handed out as short URL-safe tokens: a `SearchCursor` grows with
/// every item it has shown, and infinite scroll puts the cursor in a URL that proxies may cut.
/// The newest `capacity` cursors are kept; an older token is no longer valid (400, as a forged one).
final class CursorStore: Sendable {
    private struct State {
        var cursors: [String: SearchCursor] = [:]
        /// Tokens oldest first, to forget the oldest when full.
        var order: [String] = []
    }

    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Stores `cursor` and returns its token (22 URL-safe characters).
    func token(for cursor: SearchCursor) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        state.withLockedValue { state in
            state.cursors[token] = cursor
            state.order.append(token)
            if state.order.count > capacity {
                let dropped = state.order.count - capacity
                for old in state.order.prefix(dropped) { state.cursors[old] = nil }
                state.order.removeFirst(dropped)
            }
        }
        return token
    }

    /// The cursor `token` stands for, if it is one of the kept ones.
    func cursor(for token: String) -> SearchCursor? {
        state.withLockedValue { $0.cursors[token] }
    }
}
