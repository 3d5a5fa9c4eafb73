import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekSupport

/// Cursors kept by the server, handed out as short URL-safe tokens: a `SearchCursor` grows with every
/// item it has shown, and infinite scroll puts the cursor in a URL that proxies may cut. A store never
/// fails a search: one that cannot keep a cursor where it should keeps it in memory.
public protocol CursorStore: Sendable {
    /// Keeps `cursor` and returns its token (22 URL-safe characters).
    func token(for cursor: SearchCursor) async -> String
    /// The cursor `token` stands for, if it is one of the kept ones.
    func cursor(for token: String) async -> SearchCursor?
    /// Keeps `cursor` where a later process finds it too (the CLI's `--cursor`), and returns its token.
    func lastingToken(for cursor: SearchCursor) async -> String
}

extension CursorStore {
    /// A store every process reads already keeps its tokens there.
    public func lastingToken(for cursor: SearchCursor) async -> String {
        await token(for: cursor)
    }

    /// A new random token: 16 bytes, base64url without padding. Its first character is never `-` or
    /// `_`: the command line reads a value that starts with `-` as an option (`--cursor -Ab…` failed
    /// one time in 64), so the first byte keeps 7 random bits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[0] &= 0x7F
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The embedded default: the `capacity` cursors used most recently, in this process's memory; an
/// older token is no longer valid (400, as a forged one). Keeping and forgetting are O(1): every
/// search with a next page keeps one.
public final class MemoryCursorStore: CursorStore {
    public let capacity: Int
    private let state = NIOLockedValueBox(LRUList<SearchCursor>())

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    public func token(for cursor: SearchCursor) async -> String {
        let token = Self.newToken()
        keep(cursor, as: token)
        return token
    }

    public func cursor(for token: String) async -> SearchCursor? {
        state.withLockedValue { $0.value(for: token) }
    }

    /// Keeps `cursor` under `token`, forgetting the least recently used past the capacity.
    public func keep(_ cursor: SearchCursor, as token: String) {
        let capacity = self.capacity
        state.withLockedValue { list in
            list.set(cursor, cost: 1, for: token)
            while list.count > capacity, list.removeOldest() != nil {}
        }
    }
}
