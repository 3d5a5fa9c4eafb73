/// Whose favourites and history: the instance's owner (the CLI, a personal server) or one visitor of
/// a public instance. The stores key every row by `key`; no visitor's key is ever the owner's.
public struct StateOwner: Sendable, Hashable, CustomStringConvertible {
    /// The stored key: '' for the owner, `v:` and the visitor's id for a visitor.
    public let key: String

    /// The instance's owner.
    public static let instanceOwner = StateOwner(key: "")

    /// The visitor with anonymous id `id`.
    public static func visitor(_ id: String) -> StateOwner { StateOwner(key: "v:" + id) }

    private init(key: String) { self.key = key }

    public var description: String { key.isEmpty ? "the owner" : "a visitor" }
}
