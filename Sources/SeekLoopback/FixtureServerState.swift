import NIOCore
import NIOConcurrencyHelpers
import SeekCore

/// What a route answers with when no fault gets in the way.
enum FixtureRouteBase: Sendable {
    case response(FixtureResponse)
    case handler(@Sendable (RecordedRequest) -> FixtureResponse)
}

/// One registered pattern: its normal response, and the fault registered over it, if any.
struct FixtureRouteEntry: Sendable {
    var base: FixtureRouteBase?
    var fault: FixtureFault?
}

/// What to do with one request: act out `faults` in order (only `.delay` passes on to the next one),
/// then serve `base` (404 when nil).
struct FixtureServePlan: Sendable {
    var faults: [FixtureFault]
    var base: FixtureRouteBase?
}

struct FixtureServerState: Sendable {
    var exactRoutes: [String: FixtureRouteEntry] = [:]
    /// Keyed by the pattern without its trailing `*`.
    var prefixRoutes: [String: FixtureRouteEntry] = [:]
    var injected: [String: [FixtureFault]] = [:]
    var counts: [String: Int] = [:]
    var total = 0
    var requests: [RecordedRequest] = []
    var connections: [ObjectIdentifier: any Channel] = [:]
    var isShutDown = false

    func entry(for path: String) -> FixtureRouteEntry? {
        if let exact = exactRoutes[path] {
            return exact
        }
        var best: (prefix: String, entry: FixtureRouteEntry)?
        for (prefix, entry) in prefixRoutes where path.hasPrefix(prefix) {
            if best.map({ prefix.count > $0.prefix.count }) ?? true {
                best = (prefix, entry)
            }
        }
        return best?.entry
    }
}

/// The state the server object and its channel handlers share, behind one lock.
final class FixtureServerShared: Sendable {
    private let state = NIOLockedValueBox(FixtureServerState())

    private func update<T: Sendable>(
        pattern: String,
        _ body: (inout FixtureRouteEntry?) -> T
    ) -> T {
        state.withLockedValue { state in
            if pattern.hasSuffix("*") {
                let prefix = String(pattern.dropLast())
                return body(&state.prefixRoutes[prefix])
            }
            return body(&state.exactRoutes[pattern])
        }
    }

    func setRoute(pattern: String, base: FixtureRouteBase) {
        update(pattern: pattern) { entry in
            entry = FixtureRouteEntry(base: base, fault: nil)
        }
    }

    func setRoute(pattern: String, fault: FixtureFault) {
        update(pattern: pattern) { entry in
            // Keep the previous normal response: `.delay` serves it after waiting.
            entry = FixtureRouteEntry(base: entry?.base, fault: fault)
        }
    }

    func inject(_ fault: FixtureFault, path: String, times: Int) {
        guard times > 0 else { return }
        state.withLockedValue { state in
            state.injected[path, default: []].append(contentsOf: repeatElement(fault, count: times))
        }
    }

    func removeAllRoutes() {
        state.withLockedValue { state in
            state.exactRoutes = [:]
            state.prefixRoutes = [:]
            state.injected = [:]
        }
    }

    /// Records `request` and decides how to answer it.
    func begin(_ request: RecordedRequest) -> FixtureServePlan {
        state.withLockedValue { state in
            state.total += 1
            state.counts[request.path, default: 0] += 1
            state.requests.append(request)
            var faults: [FixtureFault] = []
            if var queue = state.injected[request.path], !queue.isEmpty {
                faults.append(queue.removeFirst())
                state.injected[request.path] = queue.isEmpty ? nil : queue
            }
            let entry = state.entry(for: request.path)
            if let fault = entry?.fault {
                faults.append(fault)
            }
            return FixtureServePlan(faults: faults, base: entry?.base)
        }
    }

    func requestCount(path: String) -> Int {
        state.withLockedValue { $0.counts[path] ?? 0 }
    }

    var totalRequestCount: Int {
        state.withLockedValue { $0.total }
    }

    var requests: [RecordedRequest] {
        state.withLockedValue { $0.requests }
    }

    var openConnectionCount: Int {
        state.withLockedValue { $0.connections.count }
    }

    /// Tracks a new connection; false when the server is shutting down (the caller closes it).
    func register(_ channel: any Channel) -> Bool {
        state.withLockedValue { state in
            guard !state.isShutDown else { return false }
            state.connections[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func unregister(_ channel: any Channel) {
        _ = state.withLockedValue { state in
            state.connections.removeValue(forKey: ObjectIdentifier(channel))
        }
    }

    /// Marks the server as shutting down and returns the connections to close (empty the second time).
    func beginShutdown() -> [any Channel] {
        state.withLockedValue { state in
            guard !state.isShutDown else { return [] }
            state.isShutDown = true
            return Array(state.connections.values)
        }
    }
}
