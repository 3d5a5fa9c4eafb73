/// Why the session refused a request, as every host reports it: the API's `error.code`, the MCP
/// result's text, the CLI's exit 64. The raw values are the API's stable codes.
///
/// A struct over a private enum, so that a new code is not a breaking change: a `switch` over it needs
/// a `default:`. `init(rawValue:)` is nil for a string that is not one of the codes (one from a newer
/// seek, say): never a guess; a client that reads codes keeps such a string as it is.
public struct RequestErrorCode: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    private enum Base: String, Sendable, Hashable, CaseIterable {
        case missingParameter = "missing_parameter"
        case invalidParameter = "invalid_parameter"
        case unknownProvider = "unknown_provider"
        case invalidCursor = "invalid_cursor"
        case invalidID = "invalid_id"
    }

    private let base: Base

    private init(_ base: Base) {
        self.base = base
    }

    /// The code `rawValue` names; nil when it names none.
    public init?(rawValue: String) {
        guard let base = Base(rawValue: rawValue) else { return nil }
        self.base = base
    }

    /// The API's stable code: `invalid_parameter`, …
    public var rawValue: String { base.rawValue }

    /// The raw value.
    public var description: String { base.rawValue }

    /// Every code, in declaration order.
    public static var allCases: [RequestErrorCode] { Base.allCases.map(RequestErrorCode.init) }

    /// A required value is absent or empty (the query, the suggestion prefix).
    public static let missingParameter = RequestErrorCode(.missingParameter)
    /// A value out of its bounds or not one of its choices (limit, page, rating, …).
    public static let invalidParameter = RequestErrorCode(.invalidParameter)
    /// A provider id no provider of this session has.
    public static let unknownProvider = RequestErrorCode(.unknownProvider)
    /// A cursor token this session did not hand out, or one seek could not have made.
    public static let invalidCursor = RequestErrorCode(.invalidCursor)
    /// An item id that is not `PROVIDER:ID`.
    public static let invalidID = RequestErrorCode(.invalidID)
}
