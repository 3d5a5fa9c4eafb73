#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The server's open connections, each with the time since which it has been waiting on its client
/// (for a head, a body, to take its response, or idle between requests); none while the server works
/// on its request. When accepting runs out of descriptors, `DescriptorBackoffHandler` has it close
/// those that have waited longest, so a slow crowd cannot keep new clients out (DESIGN, "Slow clients").
package final class ConnectionRegistry: Sendable {
    /// One connection: its channel and since when it waits on its client (uptime nanoseconds; 0: it does not).
    final class Entry: Sendable {
        let channel: any Channel
        private let since = NIOLockedValueBox<UInt64>(0)

        init(channel: any Channel) {
            self.channel = channel
        }

        /// Called by the connection's own handler, on its event loop.
        func waiting(since deadline: NIODeadline?) {
            let value = deadline.map { max($0.uptimeNanoseconds, 1) } ?? 0
            since.withLockedValue { $0 = value }
        }

        var waitingSince: UInt64 { since.withLockedValue { $0 } }
    }

    /// A connection that has waited less than this is never shed: it may be a client that just came.
    static let minimumWait = TimeAmount.milliseconds(250)
    /// At least this many are closed when descriptors run short, or an eighth of those open.
    static let minimumShed = 16

    private let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    package init() {}

    func add(_ channel: any Channel) -> Entry {
        let entry = Entry(channel: channel)
        entries.withLockedValue { $0[ObjectIdentifier(entry)] = entry }
        return entry
    }

    func remove(_ entry: Entry) {
        entries.withLockedValue { _ = $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// How many connections are open.
    package var count: Int { entries.withLockedValue { $0.count } }

    /// Closes the connections that have waited longest on their clients, at least `minimumWait` each:
    /// `limit`, else `minimumShed` or an eighth of those open when that is more. Returns how many it closed.
    @discardableResult
    package func shed(now: NIODeadline = .now(), atMost limit: Int? = nil) -> Int {
        let all = entries.withLockedValue { Array($0.values) }
        let cutoff = now - Self.minimumWait
        let waiting = all.compactMap { entry -> (since: UInt64, entry: Entry)? in
            let since = entry.waitingSince
            guard since != 0, since <= cutoff.uptimeNanoseconds else { return nil }
            return (since, entry)
        }
        let chosen = waiting.sorted { $0.since < $1.since }.prefix(limit ?? max(Self.minimumShed, all.count / 8))
        for (_, entry) in chosen {
            entry.channel.close(promise: nil)
        }
        return chosen.count
    }
}

/// Answers a request that does not keep its connection alive, then closes it: HTTP/1.0 without
/// `Connection: keep-alive`, and HTTP/1.1 with `Connection: close` (RFC 9112 §9.3). Hummingbird closes
/// only on a literal `Connection: close`, so such a request head is given one; the response goes out
/// in the request's version (an HTTP/1.0 client is not sent chunks) with `Connection: close`, and the
/// connection is closed once its last byte is written. An HTTP/1.0 keep-alive request keeps its
/// connection when its response has a length, and is closed after it when not.
final class KeepAliveHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What a request asked for, in the order requests came (pipelined ones queue).
    private struct Asked {
        var version: HTTPVersion
        var keepAlive: Bool
    }

    private var asked = CircularBuffer<Asked>()
    /// The response being written ends the connection.
    private var closing = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let keepAlive = head.isKeepAlive
        asked.append(Asked(version: head.version, keepAlive: keepAlive))
        guard !keepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            // An interim response (100 Continue) is not the answer; 101 is.
            let interim = (100..<200).contains(head.status.code) && head.status.code != 101
            guard !interim, let request = asked.first else { break }
            let old = request.version.major == 1 && request.version.minor == 0
            let framed = !old || head.headers.contains(name: "content-length") || !head.status.mayHaveResponseBody
            closing = !request.keepAlive || !framed
            guard old || closing else { break }
            if old { head.version = .http1_0 }
            head.headers.replaceOrAdd(name: "connection", value: closing ? "close" : "keep-alive")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        case .end:
            if !asked.isEmpty { asked.removeFirst() }
            guard closing else { break }
            closing = false
            let written = promise ?? context.eventLoop.makePromise()
            let channel = context.channel
            context.writeAndFlush(data, promise: written)
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return
        case .body:
            break
        }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension KeepAliveHandler: Sendable {}

/// Whether `error` is a request's body cut off: the client went away, or was closed for coming too
/// slowly (the body deadline). Such a request is one debug line in the log, never an error: the
/// client is not there to read an answer, and a slow crowd must not fill the log.
func isAbortedBody(_ error: any Error) -> Bool {
    switch error {
    case is HTTPParserError:
        return true
    case let error as ChannelError:
        return [.ioOnClosedChannel, .alreadyClosed, .eof, .inputClosed, .outputClosed].contains(error)
    case let error as IOError:
        return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
    default:
        return false
    }
}
