import Foundation
import NIOConcurrencyHelpers
import SeekCore
import SeekIdentity
import SeekSupport
import SeekTesting
import Testing

@Suite("Fan-out scheduling: calls go out at once, answers are handled below the caller's priority")
struct FanOutSchedulingTests {
    private func engine(_ ids: [String]) throws -> SearchEngine {
        SearchEngine(registry: try ProviderRegistry(ids.map { StubProvider(id: $0) }), merger: ResultMerger())
    }

    @Test("a race starts its work on the calling thread, before the caller waits for anything")
    func raceStartsOnCallersThread() async throws {
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let started = try await withTaskExecutorPreference(executor) {
            try await Deadline.race(.seconds(60)) { executor.isCurrentThread }
        }
        #expect(started)
    }

    @Test("a race's work runs on the serving executor after it suspends, as an unstructured task inherits none")
    func raceWorkTakesTheServingExecutor() async throws {
        let executor = OneThreadExecutor()
        defer { executor.stop() }
        let resumedThere = try await ServingExecutor.$current.withValue(executor) {
            try await Deadline.race(.seconds(60)) {
                try await Task.sleep(for: .milliseconds(1))
                return executor.isCurrentThread
            }
        }
        #expect(resumedThere)
    }

    @Test("a race's timeout is reported through the serving executor")
    func raceTimeoutTakesTheServingExecutor() async throws {
        let enqueued = NIOLockedValueBox(0)
        let executor = OneThreadExecutor { enqueued.withLockedValue { $0 += 1 } }
        defer { executor.stop() }
        await #expect(throws: SeekError.self) {
            try await ServingExecutor.$current.withValue(executor) {
                try await Deadline.race(.milliseconds(20)) { try await Task.sleep(for: .seconds(30)) }
            }
        }
        // The work's start, and the timeout's task: both on the executor.
        #expect(enqueued.withLockedValue { $0 } >= 2)
    }

    @Test("each provider call starts before the fan-out queues anything, in provider order")
    func callsStartBeforeAnythingIsQueued() async throws {
        let log = NIOLockedValueBox<[String]>([])
        let executor = OneThreadExecutor { log.withLockedValue { $0.append("enqueue") } }
        defer { executor.stop() }
        let engine = try engine(["a", "b", "c"])
        let onCallersThread = await withTaskExecutorPreference(executor) {
            log.withLockedValue { $0 = [] }
            return await engine.collect(engine.registry.providers, timeout: .seconds(60)) { provider in
                log.withLockedValue { $0.append("start \(provider.descriptor.id)") }
                let here = executor.isCurrentThread
                try await Task.sleep(for: .milliseconds(1))
                return here
            }
        }
        // Queued calls would log an `enqueue` each before they start, and start on the thread only
        // once the fan-out waits.
        #expect(Array(log.withLockedValue { $0 }.prefix(3)) == ["start a", "start b", "start c"])
        #expect(onCallersThread.map(\.value) == [true, true, true])
    }

    @Test("provider calls run at low priority under a caller above it")
    func callsRunLow() async throws {
        let engine = try engine(["a", "b"])
        for caller in [TaskPriority.high, .medium] {
            let priorities = await Task(priority: caller) {
                await engine.collect(engine.registry.providers, timeout: .seconds(60)) { _ in
                    try await Task.sleep(for: .milliseconds(1))
                    return Task.currentPriority
                }
            }.value
            #expect(priorities.map(\.value) == [.low, .low], "caller at \(caller)")
        }
    }

    @Test("a caller at or below low priority keeps its own: calls are never raised above it")
    func callsNeverRaised() {
        // Asked directly: a test awaiting a task of low priority raises it to its own meanwhile.
        #expect(SearchEngine.callPriority(below: .background) == .background)
        #expect(SearchEngine.callPriority(below: .low) == .low)
        #expect(SearchEngine.callPriority(below: TaskPriority(rawValue: 1)) == TaskPriority(rawValue: 1))
        #expect(SearchEngine.callPriority(below: .medium) == .low)
        #expect(SearchEngine.callPriority(below: .high) == .low)
        #expect(SearchEngine.callPriority(below: TaskPriority(rawValue: 255)) == .low)
    }

    @Test("a call whose start blocks does not lose its deadline once it waits")
    func deadlineAfterBlockingStart() async throws {
        let engine = try engine(["slow"])
        let clock = ContinuousClock()
        let start = clock.now
        let answers = await engine.collect(engine.registry.providers, timeout: .milliseconds(100)) { _ in
            usleep(20_000)
            try await Task.sleep(for: .seconds(30))
            return 1
        }
        #expect(answers.first?.result.failure?.kind == .timeout(seconds: 0.1))
        #expect(clock.now - start < .seconds(5))
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
