import NIOConcurrencyHelpers
/// A key for the container: the type itself is the key, its `Value` the type stored under it.
public protocol ContainerKey {
    associatedtype Value: Sendable
}

/// Collects registrations at the composition root; `freeze()` turns them into a `Container`.
public struct ContainerBuilder {
    private var storage: [ObjectIdentifier: Registration] = [:]

    public init() {}

    /// Registers `value` under `key`, replacing an earlier registration.
    public mutating func register<Key: ContainerKey>(_ key: Key.Type, _ value: Key.Value) {
        storage[ObjectIdentifier(key)] = .value(value)
    }

    /// Registers a service built by `make` on its first `resolve`, for costly services that most
    /// commands never use (the image cache); every later `resolve` returns the same instance.
    public mutating func register<Key: ContainerKey>(_ key: Key.Type, lazy make: @escaping @Sendable () throws -> Key.Value) {
        storage[ObjectIdentifier(key)] = .lazy(LazyService(make))
    }

    public func freeze() -> Container { Container(storage: storage) }
}

/// What is registered under a key. Kept apart so that `resolve` casts each to the exact type it has:
/// such a cast is a comparison, while a cast that fails first makes the runtime search every
/// protocol conformance in the process, ~70 µs each time a new type is resolved.
private enum Registration: Sendable {
    case value(any Sendable)
    case lazy(any AnyObject & Sendable)
}

/// A service built on first use, once, however many tasks ask at the same time.
private final class LazyService<Value: Sendable>: Sendable {
    private let make: @Sendable () throws -> Value
    private let built = NIOLockedValueBox<Value?>(nil)

    init(_ make: @escaping @Sendable () throws -> Value) {
        self.make = make
    }

    var value: Value {
        get throws {
            try built.withLockedValue { built in
                if let built { return built }
                let value = try make()
                built = value
                return value
            }
        }
    }
}

/// An immutable registry of shared services keyed by `ObjectIdentifier` of a key type.
/// Frozen at start-up, so it is safe to share across tasks without locks.
public struct Container: Sendable {
    private let storage: [ObjectIdentifier: Registration]

    fileprivate init(storage: [ObjectIdentifier: Registration]) {
        self.storage = storage
    }

    /// The value registered for `key`; throws an error naming the key when nothing is.
    public func resolve<Key: ContainerKey>(_ key: Key.Type) throws -> Key.Value {
        switch storage[ObjectIdentifier(key)] {
        case .value(let value as Key.Value): return value
        case .lazy(let service as LazyService<Key.Value>): return try service.value
        case .value, .lazy, nil: break
        }
        throw SeekError(.notRegistered(key: String(describing: key)))
    }

    public func contains<Key: ContainerKey>(_ key: Key.Type) -> Bool {
        storage[ObjectIdentifier(key)] != nil
    }
}

/// The providers of a process, in their registration order, by id.
public struct ProviderRegistry: Sendable {
    public let providers: [any SearchProvider]

    /// Builds the registry; a duplicate id is a configuration error.
    public init(_ providers: [any SearchProvider]) throws {
        var seen = Set<String>()
        for provider in providers {
            let id = provider.descriptor.id
            guard seen.insert(id).inserted else {
                throw SeekError(.configuration, provider: id, detail: "two providers share the id \(id)")
            }
        }
        self.providers = providers
    }

    public var ids: [String] { providers.map(\.descriptor.id) }

    public func provider(_ id: String) -> (any SearchProvider)? {
        providers.first { $0.descriptor.id == id }
    }

    /// The provider with `id`, or an invalid-input error listing the known ids.
    public func require(_ id: String) throws -> any SearchProvider {
        guard let provider = provider(id) else {
            throw SeekError(.invalidInput, detail: "unknown provider '\(id)' (known: \(ids.joined(separator: ", ")))")
        }
        return provider
    }

    /// The provider a bang names (`ol` or `openlibrary`), if any.
    public func provider(forBang bang: String) -> (any SearchProvider)? {
        let name = bang.lowercased()
        return providers.first { $0.descriptor.id == name || $0.descriptor.shortcuts.contains(name) }
    }
}
