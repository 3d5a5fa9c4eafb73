#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import SeekKit
import SeekCore

/// How long a connection may take to send a request head (`SEEK_HEADER_TIMEOUT`) and its body
/// (`SEEK_BODY_TIMEOUT`), to take a response it is sent (`SEEK_SEND_TIMEOUT`), and may sit idle
/// between requests (`SEEK_IDLE_TIMEOUT`) before the server closes it (DESIGN, "Slow clients").
package struct ConnectionTimeouts: Sendable, Equatable {
    package static let headerVariable = "SEEK_HEADER_TIMEOUT"
    package static let idleVariable = "SEEK_IDLE_TIMEOUT"
    package static let bodyVariable = "SEEK_BODY_TIMEOUT"
    package static let sendVariable = "SEEK_SEND_TIMEOUT"
    /// The longest any timeout may be: a day (past it a value is a typo, and the timer math stays far from overflow).
    package static let maximumSeconds: Double = 86_400
    /// The body's minimum rate, as Apache's mod_reqtimeout has it (`body=10,MinRate=500`): each this
    /// many bytes received gives the body one more second.
    package static let bodyMinimumRate = 500
    /// However fast it comes, a body is whole within this many times the body timeout (a minute by default).
    package static let bodyMaximumFactor = 6

    /// From a connection's opening, or a next request's first byte, to its request head's last byte.
    package var header: Duration
    /// From the end of a response to the next request's first byte.
    package var idle: Duration
    /// From a request head to its body's last byte, one second more for each `bodyMinimumRate` bytes received.
    package var body: Duration
    /// How long a byte of a response may wait in the server's output for its client to take it (the
    /// kernel's socket buffer full): past it, the connection is reset. Checked every half of it.
    package var send: Duration

    package init(header: Duration = .seconds(10), idle: Duration = .seconds(60), body: Duration = .seconds(10), send: Duration = .seconds(30)) {
        self.header = header
        self.idle = idle
        self.body = body
        self.send = send
    }

    /// The timeouts of `settings`, the defaults where a variable is unset. A value that is not a
    /// number of seconds above 0 and at most a day is a configuration error naming the variable.
    package init(settings: Settings) throws {
        self.init()
        if let header = try Self.seconds(Self.headerVariable, in: settings) { self.header = header }
        if let idle = try Self.seconds(Self.idleVariable, in: settings) { self.idle = idle }
        if let body = try Self.seconds(Self.bodyVariable, in: settings) { self.body = body }
        if let send = try Self.seconds(Self.sendVariable, in: settings) { self.send = send }
    }

    /// How long a body that has brought `bytes` so far may take from its head: the body timeout, a
    /// second more for each `bodyMinimumRate` bytes, at most `bodyMaximumFactor` times the timeout.
    package func bodyAllowance(bytes: Int) -> Duration {
        min(body + .seconds(max(0, bytes) / Self.bodyMinimumRate), body * Self.bodyMaximumFactor)
    }

    /// When a body that began at `start` and has brought `bytes` so far must be whole.
    func bodyDeadline(start: NIODeadline, bytes: Int) -> NIODeadline {
        start + TimeAmount(bodyAllowance(bytes: bytes))
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

/// Gives every connection a deadline for what it owes the server. It closes a connection that has
/// not sent a whole request head within the header timeout, whose body comes slower than the body
/// timeout and its minimum rate allow, that leaves its response unread past the send timeout, or that
/// idles between requests past the idle timeout. It sits after the HTTP decoder, where it sees heads,
/// bodies and responses, and puts a `RequestBytesWatcher` before the decoder to learn of a next
/// request's first byte, and a `KeepAliveHandler` after it (HTTP/1.0 and `Connection: close`).
/// Dribbling bytes never restarts the header timer. It tells the server's `ConnectionRegistry` how
/// long the connection has been waiting on its client, so that the slowest go first when descriptors
/// run short.
final class SlowClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// The header timer runs: from the connection's opening, or a next request's first byte.
        case awaitingHead
        /// A request head is in: no header or idle timer until its response has been written.
        case busy
        /// The idle timer runs: a response was written and nothing of another request has come.
        case idle
    }

    private let timeouts: ConnectionTimeouts
    private let logger: Logger
    private let connections: ConnectionRegistry
    private var phase = Phase.awaitingHead
    /// When the phase began.
    private var phaseStart = NIODeadline.now()
    private var requestsInFlight = 0
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var started = false

    /// A request's body is still coming: since when, and how many bytes so far.
    private var bodyStart: NIODeadline?
    private var bodyBytes = 0
    private var bodyTimer: Scheduled<Void>?

    /// Output has been waiting in the server's buffer since then (the client not taking it as fast as
    /// it comes), and how many bytes were written in each of the last two half send timeouts.
    private var blockedSince: NIODeadline?
    private var sendTimer: Scheduled<Void>?
    private var writtenLately = 0
    private var writtenBefore = 0

    /// The connection's place in the registry, and what it was last told.
    private var entry: ConnectionRegistry.Entry?
    private var reportedWait: NIODeadline?

    init(timeouts: ConnectionTimeouts, logger: Logger, connections: ConnectionRegistry = ConnectionRegistry()) {
        self.timeouts = timeouts
        self.logger = logger
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let pipeline = context.pipeline.syncOperations
        do {
            try pipeline.addHandler(RequestBytesWatcher(handler: self), position: .first)
            // Between the HTTP/1 decoder and the HTTP types codec, where the request's version is still known.
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(KeepAliveHandler(), position: .after(decoder))
        } catch {
            // Only a closing channel refuses a handler; the header timer below still bounds it.
            logger.debug("connection handlers not added", metadata: ["error": "\(error)"])
        }
        entry = connections.add(context.channel)
        if context.channel.isActive { start() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        if let entry { connections.remove(entry) }
        entry = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        if let entry { connections.remove(entry) }
        entry = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsInFlight += 1
            enter(.busy)
            cancelTimer()
            bodyStart = .now()
            bodyBytes = 0
        case .body(let bytes):
            bodyBytes += bytes.readableBytes
        case .end:
            bodyStart = nil
            bodyTimer?.cancel()
            bodyTimer = nil
        }
        context.fireChannelRead(data)
    }

    /// After a read's parts: a request without a body has had its end by now, so only a body still
    /// coming starts the body timer (none is scheduled for the usual GET).
    func channelReadComplete(context: ChannelHandlerContext) {
        if let bodyStart, bodyTimer == nil {
            scheduleBody(at: timeouts.bodyDeadline(start: bodyStart, bytes: bodyBytes))
        }
        report()
        context.fireChannelReadComplete()
    }

    /// Bytes went to the socket's side of the pipeline (`RequestBytesWatcher`).
    fileprivate func bytesWritten(_ count: Int) {
        writtenLately += count
    }

    /// A flush left output in the server's buffer: the send check starts, unless it runs already.
    fileprivate func flushed(leaving buffered: Int) {
        guard buffered > 0, blockedSince == nil else { return }
        blockedSince = .now()
        // The bytes waiting now count as just written: they get the whole send timeout.
        writtenBefore = buffered
        writtenLately = 0
        scheduleSendCheck()
        report()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), requestsInFlight > 0 {
            requestsInFlight -= 1
            if requestsInFlight == 0 {
                enter(.idle)
                schedule(after: timeouts.idle)
                report()
            }
        }
        context.write(data, promise: promise)
    }

    /// Bytes arrived before the decoder: on an idle connection they start the next request's head.
    fileprivate func bytesArrived() {
        guard phase == .idle else { return }
        enter(.awaitingHead)
        schedule(after: timeouts.header)
    }

    private func start() {
        guard !started else { return }
        started = true
        enter(.awaitingHead)
        schedule(after: timeouts.header)
        report()
    }

    private func enter(_ next: Phase) {
        phase = next
        phaseStart = .now()
    }

    /// Since when the connection has been waiting on its client (nil while the server works on its
    /// request): the registry sheds the longest waiting first.
    private var waitingSince: NIODeadline? {
        if let blockedSince { return blockedSince }
        if let bodyStart { return bodyStart }
        return phase == .busy ? nil : phaseStart
    }

    private func report() {
        let since = waitingSince
        guard since != reportedWait, let entry else { return }
        reportedWait = since
        entry.waiting(since: since)
    }

    private func schedule(after delay: Duration) {
        cancelTimer()
        guard let context else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            timer = nil
            expired()
        }
    }

    private func scheduleBody(at deadline: NIODeadline) {
        guard let context else { return }
        bodyTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            bodyTimer = nil
            bodyExpired()
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

    private func bodyExpired() {
        guard let context, let bodyStart else { return }
        let deadline = timeouts.bodyDeadline(start: bodyStart, bytes: bodyBytes)
        guard deadline <= .now() else {
            scheduleBody(at: deadline)
            return
        }
        logger.debug(
            "closing a connection: its request body came slower than the body timeout allows",
            metadata: ["received_bytes": "\(bodyBytes)"])
        context.close(promise: nil)
    }

    private func scheduleSendCheck() {
        guard let context else { return }
        sendTimer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeouts.send / 2)) { [self] in
            sendTimer = nil
            checkSend()
        }
    }

    /// Every half send timeout while output waits: the buffered bytes are the last ones written, so
    /// more of them than were written in the last send timeout means some byte has waited longer.
    private func checkSend() {
        guard let context, blockedSince != nil else { return }
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        guard buffered > 0 else {
            blockedSince = nil
            report()
            return
        }
        guard buffered <= writtenLately + writtenBefore else {
            sendExpired(context: context, buffered: buffered)
            return
        }
        writtenBefore = writtenLately
        writtenLately = 0
        scheduleSendCheck()
    }

    private func sendExpired(context: ChannelHandlerContext, buffered: Int) {
        logger.debug(
            "closing a connection: its client left the response unread past the send timeout", metadata: ["unsent_bytes": "\(buffered)"])
        // As nginx's reset_timedout_connection: a reset, so the kernel does not keep the unread bytes
        // (and the socket) for a client that does not read them.
        let channel = context.channel
        guard let socket = channel as? any SocketOptionProvider else {
            channel.close(promise: nil)
            return
        }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    private func cancelTimers() {
        cancelTimer()
        bodyTimer?.cancel()
        bodyTimer = nil
        sendTimer?.cancel()
        sendTimer = nil
    }
}

@available(*, unavailable)
extension SlowClientHandler: Sendable {}

/// The first handler of a connection: tells its `SlowClientHandler` when bytes arrive, before the
/// HTTP decoder holds them back until a head is whole, how many bytes go out, and how many a flush
/// leaves in the server's buffer (the socket's full).
final class RequestBytesWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let handler: SlowClientHandler

    init(handler: SlowClientHandler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        handler.bytesArrived()
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        handler.bytesWritten(unwrapOutboundIn(data).readableBytes)
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if let buffered = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes), buffered > 0 {
            handler.flushed(leaving: buffered)
        }
    }
}

@available(*, unavailable)
extension RequestBytesWatcher: Sendable {}
