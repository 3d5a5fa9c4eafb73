import Logging
import NIOCore
import NIOHTTPTypes
import SeekKit
import SeekCore

/// How long a connection may take to send a request head (`SEEK_HEADER_TIMEOUT`) and may sit idle
/// between requests (`SEEK_IDLE_TIMEOUT`) before the server closes it (DESIGN, "Slow clients").
package struct ConnectionTimeouts: Sendable, Equatable {
    package static let headerVariable = "SEEK_HEADER_TIMEOUT"
    package static let idleVariable = "SEEK_IDLE_TIMEOUT"
    /// The longest either timeout may be: a day (past it a value is a typo, and the timer math stays far from overflow).
    package static let maximumSeconds: Double = 86_400

    /// From a connection's opening, or a next request's first byte, to its request head's last byte.
    package var header: Duration
    /// From the end of a response to the next request's first byte.
    package var idle: Duration

    package init(header: Duration = .seconds(10), idle: Duration = .seconds(60)) {
        self.header = header
        self.idle = idle
    }

    /// The timeouts of `settings`, the defaults where a variable is unset. A value that is not a
    /// number of seconds above 0 and at most a day is a configuration error naming the variable.
    package init(settings: Settings) throws {
        self.init()
        if let header = try Self.seconds(Self.headerVariable, in: settings) { self.header = header }
        if let idle = try Self.seconds(Self.idleVariable, in: settings) { self.idle = idle }
    }

    private static func seconds(_ variable: String, in settings: Settings) throws -> Duration? {
        guard let text = settings.string(variable) else { return nil }
        guard let seconds = Double(text.trimmed()), seconds.isFinite, seconds > 0, seconds <= maximumSeconds else {
            throw SeekError(
                .configuration,
                detail: "\(variable) must be a number of seconds above 0 and at most \(SeekError.format(maximumSeconds)) (a day), got \(text)")
        }
        // A positive value too small for a nanosecond would be a timer that fires at once.
        return max(.seconds(clamping: seconds, maximum: maximumSeconds), .nanoseconds(1))
    }
}

/// Closes a connection that has not sent a whole request head within the header timeout, or that
/// idles between requests past the idle timeout. It sits after the HTTP decoder, where it sees heads
/// complete and responses end, and puts a `RequestBytesWatcher` before the decoder to learn of a
/// next request's first byte. Dribbling bytes never restarts the header timer.
final class SlowClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// The header timer runs: from the connection's opening, or a next request's first byte.
        case awaitingHead
        /// A request head is in: no timer of ours until its response has been written.
        case busy
        /// The idle timer runs: a response was written and nothing of another request has come.
        case idle
    }

    private let timeouts: ConnectionTimeouts
    private let logger: Logger
    private var phase = Phase.awaitingHead
    private var requestsInFlight = 0
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var started = false

    init(timeouts: ConnectionTimeouts, logger: Logger) {
        self.timeouts = timeouts
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            try context.pipeline.syncOperations.addHandler(RequestBytesWatcher(handler: self), position: .first)
        } catch {
            // Only a closing channel refuses a handler; the header timer below still bounds it.
            logger.debug("slow-client watcher not added", metadata: ["error": "\(error)"])
        }
        if context.channel.isActive { start() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            requestsInFlight += 1
            phase = .busy
            cancelTimer()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), requestsInFlight > 0 {
            requestsInFlight -= 1
            if requestsInFlight == 0 {
                phase = .idle
                schedule(after: timeouts.idle)
            }
        }
        context.write(data, promise: promise)
    }

    /// Bytes arrived before the decoder: on an idle connection they start the next request's head.
    fileprivate func bytesArrived() {
        guard phase == .idle else { return }
        phase = .awaitingHead
        schedule(after: timeouts.header)
    }

    private func start() {
        guard !started else { return }
        started = true
        phase = .awaitingHead
        schedule(after: timeouts.header)
    }

    private func schedule(after delay: Duration) {
        cancelTimer()
        guard let context else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            timer = nil
            expired()
        }
    }

    private func expired() {
        guard let context else { return }
        switch phase {
        case .busy:
            return
        case .awaitingHead:
            logger.debug("closing a connection: no whole request head within the header timeout")
        case .idle:
            logger.debug("closing an idle connection")
        }
        context.close(promise: nil)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}

@available(*, unavailable)
extension SlowClientHandler: Sendable {}

/// The first handler of a connection: tells its `SlowClientHandler` when bytes arrive, before the
/// HTTP decoder holds them back until a head is whole.
final class RequestBytesWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let handler: SlowClientHandler

    init(handler: SlowClientHandler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        handler.bytesArrived()
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RequestBytesWatcher: Sendable {}
