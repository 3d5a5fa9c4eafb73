import Foundation
import Logging
import MCP

/// A transport that, once the client has closed its side, keeps the incoming stream open until every
/// request it read has been answered (or `drainLimit` has passed). The SDK's server ends its loop
/// when the stream ends, while requests still run in their own tasks: without this,
/// `seek mcp < requests.jsonl` would close the session under the last answers.
actor AnsweringTransport: Transport {
    nonisolated let logger: Logger
    private let inner: any Transport
    private let drainLimit: Duration
    /// Ids of requests read and not yet answered, as `MessageIDs.key` writes them.
    private var unanswered: Set<String> = []
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ inner: any Transport, logger: Logger, drainLimit: Duration = .seconds(60)) {
        self.inner = inner
        self.logger = logger
        self.drainLimit = drainLimit
    }

    func connect() async throws {
        try await inner.connect()
    }

    func disconnect() async {
        await inner.disconnect()
        release()
    }

    /// Sends `data`; a response settles its request even when it cannot be written (the client is gone).
    func send(_ data: Data) async throws {
        defer {
            unanswered.subtract(MessageIDs.responses(in: data))
            if unanswered.isEmpty { release() }
        }
        try await inner.send(data)
    }

    func receive() -> AsyncThrowingStream<Data, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let forwarding = Task { await forward(to: continuation) }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }

    /// Passes every message on, noting requests and cancellations; at the end of input, waits for the answers.
    private func forward(to continuation: AsyncThrowingStream<Data, any Error>.Continuation) async {
        do {
            for try await message in await inner.receive() {
                let ids = MessageIDs.incoming(in: message)
                unanswered.formUnion(ids.requests)
                unanswered.subtract(ids.cancelled)
                continuation.yield(message)
            }
        } catch {
            continuation.finish(throwing: error)
            return
        }
        await allAnswered()
        continuation.finish()
    }

    private func allAnswered() async {
        guard !unanswered.isEmpty else { return }
        let limit = drainLimit
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.release()
        }
        await withCheckedContinuation { waiters.append($0) }
        timer.cancel()
    }

    private func release() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }
}

/// The JSON-RPC ids in a message (or a batch), as strings that tell `"1"` from `1`.
enum MessageIDs {
    /// Requests (a method and an id) and the ids a `notifications/cancelled` withdraws.
    static func incoming(in data: Data) -> (requests: Set<String>, cancelled: Set<String>) {
        var requests: Set<String> = []
        var cancelled: Set<String> = []
        for message in messages(in: data) {
            guard let method = message["method"] as? String else { continue }
            if let id = message["id"].flatMap(key) {
                requests.insert(id)
            } else if method == "notifications/cancelled",
                      let params = message["params"] as? [String: Any], let id = params["requestId"].flatMap(key) {
                cancelled.insert(id)
            }
        }
        return (requests, cancelled)
    }

    /// Responses (an id and no method).
    static func responses(in data: Data) -> Set<String> {
        Set(messages(in: data).compactMap { message in
            message["method"] == nil ? message["id"].flatMap(key) : nil
        })
    }

    static func key(_ id: Any) -> String? {
        if let text = id as? String { return "s:" + text }
        if let number = id as? Int { return "n:\(number)" }
        if let number = id as? NSNumber { return "n:" + number.stringValue }
        return nil
    }

    private static func messages(in data: Data) -> [[String: Any]] {
        let parsed = try? JSONSerialization.jsonObject(with: data)
        if let single = parsed as? [String: Any] { return [single] }
        return (parsed as? [Any])?.compactMap { $0 as? [String: Any] } ?? []
    }
}
