import NIOConcurrencyHelpers
import SeekCore
import SeekKit
import SeekLoopback
import Testing

private enum GreetingKey: ContainerKey { typealias Value = String }
private enum CounterKey: ContainerKey { typealias Value = Int }
private enum AnythingKey: ContainerKey { typealias Value = any Sendable }

@Suite("Container")
struct ContainerTests {
    @Test("resolves what the composition root registered")
    func resolvesRegisteredValue() throws {
        var builder = ContainerBuilder()
        builder.register(GreetingKey.self, "hello")
        let container = builder.freeze()
        #expect(try container.resolve(GreetingKey.self) == "hello")
    }

    @Test("a missing key throws an error that names it")
    func missingKeyNamesTheKey() {
        let container = ContainerBuilder().freeze()
        #expect {
            try container.resolve(CounterKey.self)
        } throws: { error in
            guard let seek = error as? SeekError, case .notRegistered = seek.kind, let key = seek.kind.key else { return false }
            return key.contains("CounterKey") && seek.description.contains("CounterKey")
        }
    }

    @Test("a lazy service is built on its first resolve, not before, and only once")
    func lazyBuiltOnceOnFirstUse() async throws {
        let builds = NIOLockedValueBox(0)
        var builder = ContainerBuilder()
        builder.register(CounterKey.self, lazy: { builds.withLockedValue { $0 += 1; return $0 * 100 } })
        let container = builder.freeze()
        #expect(builds.withLockedValue { $0 } == 0)
        let values = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<20 { group.addTask { try? container.resolve(CounterKey.self) } }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: 100, count: 20))
        #expect(builds.withLockedValue { $0 } == 1)
    }

    @Test("a lazy service that fails to build throws its error, and the next resolve tries again")
    func lazyFailureRetries() throws {
        let attempts = NIOLockedValueBox(0)
        var builder = ContainerBuilder()
        builder.register(GreetingKey.self, lazy: {
            let attempt = attempts.withLockedValue { $0 += 1; return $0 }
            if attempt == 1 { throw SeekError(.configuration, detail: "not yet") }
            return "built"
        })
        let container = builder.freeze()
        #expect(throws: SeekError.self) { try container.resolve(GreetingKey.self) }
        #expect(try container.resolve(GreetingKey.self) == "built")
    }

    @Test("a lazy service stored as `any Sendable` resolves to what it built, not to its wrapper")
    func lazyServiceOfAnyTypeResolvesToItsValue() throws {
        var builder = ContainerBuilder()
        builder.register(AnythingKey.self, lazy: { 42 })
        let container = builder.freeze()
        #expect(try container.resolve(AnythingKey.self) as? Int == 42)
    }

    @Test("a later registration replaces an earlier one")
    func laterRegistrationWins() throws {
        var builder = ContainerBuilder()
        builder.register(CounterKey.self, 1)
        builder.register(CounterKey.self, 2)
        #expect(try builder.freeze().resolve(CounterKey.self) == 2)
    }

    @Test("a frozen container resolves safely from many tasks at once")
    func concurrentResolves() async throws {
        var builder = ContainerBuilder()
        builder.register(CounterKey.self, 42)
        builder.register(GreetingKey.self, "hi")
        let container = builder.freeze()
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask { try container.resolve(CounterKey.self) + (try container.resolve(GreetingKey.self)).count }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == 200 * 44)
    }

    @Test("the provider registry rejects two providers with one id")
    func duplicateProviderIDsAreRejected() {
        let one = StubProvider(id: "same")
        #expect(throws: SeekError.self) { try ProviderRegistry([one, StubProvider(id: "same")]) }
    }

    @Test("the provider registry keeps order and finds providers by id and bang")
    func registryOrderAndBangs() throws {
        let registry = try ProviderRegistry([StubProvider(id: "b", shortcuts: ["bee"]), StubProvider(id: "a")])
        #expect(registry.ids == ["b", "a"])
        #expect(registry.provider(forBang: "bee")?.descriptor.id == "b")
        #expect(registry.provider(forBang: "A")?.descriptor.id == "a")
        #expect(registry.provider(forBang: "zzz") == nil)
        #expect(throws: SeekError.self) { try registry.require("nope") }
    }
}

/// A provider that answers from a fixed list, for engine and registry tests.
struct StubProvider: SearchProvider {
    let descriptor: ProviderDescriptor
    var items: [Item] = []
    var delay: Duration = .zero
    var failure: SeekError?

    init(id: String, shortcuts: [String] = [], items: [Item] = [], delay: Duration = .zero, failure: SeekError? = nil, weight: Double = 1) {
        descriptor = ProviderDescriptor(
            id: id, name: id, kinds: [.book], capabilities: [.search], paging: .offset, weight: weight, shortcuts: shortcuts)
        self.items = items
        self.delay = delay
        self.failure = failure
    }

    var endpoint: String { "stub://\(descriptor.id)" }

    func search(_ request: SearchRequest, options: CallOptions) async throws -> SearchPage {
        if delay > .zero { try await Task.sleep(for: delay) }
        if let failure { throw failure }
        let slice = Array(items.dropFirst(request.offset).prefix(request.limit))
        return SearchPage(items: slice, total: items.count,
                          next: SearchPage.nextOffset(after: request, received: slice.count, total: items.count))
    }

    func detail(_ id: ItemID, options: CallOptions) async throws -> ItemDetail {
        guard let item = items.first(where: { $0.id == id }) else { throw SeekError(.notFound, provider: descriptor.id) }
        return ItemDetail(item: item)
    }
}
