import Foundation
import SeekSupport

/// Continues a search where it stopped: each provider's own next token, plus a compact set of
/// fingerprints of everything earlier pages showed, so that no item repeats on a later page.
///
/// The token is base64url of a small binary record (version, page, positions, sorted 32-bit
/// FNV-1a fingerprints), about 4 bytes per key: a few kilobytes after several pages of 100.
public struct SearchCursor: Sendable, Hashable, Codable {
    /// Provider id → that provider's next token. A provider without one has no more to give.
    public var positions: [String: String]
    /// The page number the cursor leads to.
    public var page: Int
    /// Fingerprints of the identity keys (`SearchCursor.keys(for:)`) of every item already shown.
    public var seen: Set<UInt32>

    public init(positions: [String: String], page: Int, seen: Set<UInt32> = []) {
        self.positions = positions
        self.page = page
        self.seen = seen
    }

    /// How many of an item's ISBN-13s are remembered: Open Library works list every edition's ISBN,
    /// hundreds at times, and the token must stay small. Lookups always test all of them.
    public static let rememberedISBNs = 4

    /// True when an earlier page showed this item or one `merger` would join it with.
    public func hasSeen(_ item: Item, by merger: any ResultMerging) -> Bool {
        guard !seen.isEmpty else { return false }
        return Self.keys(for: item, by: merger).contains { seen.contains(Self.fingerprint($0)) }
    }

    /// Remembers `items` as shown (their id, first ISBN-13s, or title key as `merger` reads them).
    public mutating func remember(_ items: some Sequence<Item>, by merger: any ResultMerging) {
        for item in items {
            for key in Self.keys(for: item, by: merger, isbnLimit: Self.rememberedISBNs) { seen.insert(Self.fingerprint(key)) }
        }
    }

    /// The keys under which an item counts as seen: its id and the keys `merger` joins books by.
    public static func keys(for item: Item, by merger: any ResultMerging, isbnLimit: Int = .max) -> [String] {
        var keys = ["id:" + item.id.description]
        var isbns = 0
        merger.forEachMatchKey(of: item) { key in
            if case .isbn = key {
                guard isbns < isbnLimit else { return }
                isbns += 1
            }
            keys.append(key.text)
        }
        return keys
    }

    /// 32-bit FNV-1a of the key's UTF-8: stable across processes, unlike `Hasher`.
    public static func fingerprint(_ key: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in key.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }

    // MARK: Token

    static let version: UInt8 = 1
    /// Bounds a decoded token must respect, so a forged one cannot ask for absurd work.
    static let maxProviders = 256, maxTextBytes = 4096, maxSeen = 1_000_000

    /// The opaque `--cursor` text (base64url, no padding).
    public var token: String {
        var writer = VarintWriter()
        writer.bytes.append(Self.version)
        writer.varint(UInt64(max(1, page)))
        writer.varint(UInt64(positions.count))
        for (provider, position) in positions.sorted(by: { $0.key < $1.key }) {
            writer.text(provider)
            writer.text(position)
        }
        writer.varint(UInt64(seen.count))
        for value in seen.sorted() {
            writer.bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        return Data(writer.bytes).base64EncodedString()
            .replacingAll("+", with: "-")
            .replacingAll("/", with: "_")
            .replacingAll("=", with: "")
    }

    /// Decodes a token; anything that is not one `token` made is an `.invalidInput` error.
    public init(token: String) throws {
        let invalid = SeekError(.invalidInput, detail: "not a valid --cursor token")
        var base64 = token.trimmed()
            .replacingAll("-", with: "+").replacingAll("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { throw invalid }
        var reader = VarintReader(bytes: Array(data))
        guard reader.byte() == Self.version,
              let page = reader.varint(), page >= 1, page <= UInt64(SearchRequest.maxPage),
              let count = reader.varint(), count <= UInt64(Self.maxProviders)
        else { throw invalid }
        var positions: [String: String] = [:]
        for _ in 0..<Int(count) {
            guard let provider = reader.text(limit: Self.maxTextBytes), let position = reader.text(limit: Self.maxTextBytes),
                  !provider.isEmpty
            else { throw invalid }
            positions[provider] = position
        }
        guard let seenCount = reader.varint(), seenCount <= UInt64(Self.maxSeen),
              reader.remaining == Int(seenCount) * 4
        else { throw invalid }
        var seen = Set<UInt32>(minimumCapacity: Int(seenCount))
        for _ in 0..<Int(seenCount) {
            guard let value = reader.uint32() else { throw invalid }
            seen.insert(value)
        }
        self.init(positions: positions, page: Int(page), seen: seen)
    }
}

extension SearchCursor {
    /// Throws `.invalidInput` ("not a cursor from seek") unless this cursor is one seek could have made
    /// for `providers` at `limit` results a page: its page within `SearchRequest.maxOffset` results, each
    /// offset-paged provider's position a number from 0 to that, each page-paged provider's a page
    /// within it. Opaque (`.cursor`-paged) positions are the provider's to judge.
    public func validate(for providers: [any SearchProvider], limit: Int) throws {
        func invalid(_ reason: String) -> SeekError {
            SeekError(.invalidInput, detail: "not a cursor from seek: \(reason)")
        }
        guard SearchRequest.checkedOffset(page: page, limit: limit) != nil else {
            throw invalid("its page \(page) at \(limit) results a page is past the first \(SearchRequest.maxOffset) results")
        }
        for provider in providers {
            let id = provider.descriptor.id
            guard let position = positions[id] else { continue }
            let shown = position.count > 40 ? String(position.prefix(40)) + "…" : position
            switch provider.descriptor.paging {
            case .offset:
                guard let offset = Int(position), (0...SearchRequest.maxOffset).contains(offset) else {
                    throw invalid("\(id)'s offset '\(shown)' is not a number from 0 to \(SearchRequest.maxOffset)")
                }
            case .page:
                guard let page = Int(position), SearchRequest.checkedOffset(page: page, limit: limit) != nil else {
                    throw invalid("\(id)'s page '\(shown)' is not a page from 1 within the first \(SearchRequest.maxOffset) results")
                }
            case .cursor:
                continue
            }
        }
    }
}
