/// An item's global identity: `provider:value`, e.g. `openlibrary:OL45804W`.
public struct ItemID: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    public let provider: String
    public let value: String

    public init(provider: String, value: String) {
        self.provider = provider
        self.value = value
    }

    /// Parses `provider:value`; nil when either side is empty or the colon is missing.
    public init?(parsing text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let provider = String(text[..<colon]).lowercased()
        let value = String(text[text.index(after: colon)...])
        guard !provider.isEmpty, !value.isEmpty,
              provider.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        else { return nil }
        self.init(provider: provider, value: value)
    }

    public var description: String { "\(provider):\(value)" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = ItemID(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a provider:value id: \(text)")
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public static func < (lhs: ItemID, rhs: ItemID) -> Bool { lhs.description < rhs.description }
}
