import SeekCore
import NIOCore
import NIOHTTP1

/// Answers the requests of one connection. Lives on that connection's event loop; every deferred
/// step (delays, drips, chunked writes) is scheduled there, so nothing blocks the loop.
final class FixtureServerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let chunkSize = 64 * 1024

    private let shared: FixtureServerShared
    private var head: HTTPRequestHead?
    private var keepAlive = true
    private var isOpen = true
    private var pending: Scheduled<Void>?

    init(shared: FixtureServerShared) {
        self.shared = shared
    }

    // MARK: Channel events

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break  // Request bodies are not recorded.
        case .end:
            guard let head else { return }
            self.head = nil
            keepAlive = head.isKeepAlive
            let request = RecordedRequest(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) }
            )
            let plan = shared.begin(request)
            serve(plan.faults[...], base: plan.base, request: request, version: head.version, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        stop()
        context.close(promise: nil)
    }

    private func stop() {
        isOpen = false
        pending?.cancel()
        pending = nil
    }

    // MARK: Serving

    private func serve(
        _ faults: ArraySlice<FixtureFault>,
        base: FixtureRouteBase?,
        request: RecordedRequest,
        version: HTTPVersion,
        context: ChannelHandlerContext
    ) {
        guard isOpen else { return }
        guard let fault = faults.first else {
            send(Self.resolve(base, request), version: version, context: context)
            return
        }
        switch fault {
        case .delay(let duration):
            pending = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(duration)) {
                self.pending = nil
                self.serve(faults.dropFirst(), base: base, request: request, version: version, context: context)
            }
        case .status(let status, let body, let headers):
            var headers = headers
            if !body.isEmpty, !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                let first = body.first { !$0.isWhitespace }
                let json = first == "{" || first == "["
                headers.append(("Content-Type", json ? "application/json" : "text/plain; charset=utf-8"))
            }
            send(FixtureResponse(status: status, headers: headers, body: Array(body.utf8)), version: version, context: context)
        case .hang:
            break  // Never answer; the connection stays open until someone closes it.
        case .malformedJSON:
            send(.json(Self.malformedJSON), version: version, context: context)
        case .truncated:
            sendTruncated(version: version, context: context)
        case .html:
            let page = FixtureResponse(
                status: 200,
                headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Array(Self.htmlPage.utf8)
            )
            send(page, version: version, context: context)
        case .hugeBody(let bytes):
            let total = max(0, bytes)
            writeHead(status: 200, headers: [("Content-Type", "application/json")], length: total, version: version, context: context)
            writeHuge(offset: 0, total: total, context: context)
        case .slowDrip(let interval):
            let body = Array(Self.dripBody.utf8)
            writeHead(status: 200, headers: [("Content-Type", "application/json")], length: body.count, version: version, context: context)
            context.flush()
            drip(body, from: 0, every: TimeAmount(interval), context: context)
        case .empty:
            send(FixtureResponse(status: 200, body: []), version: version, context: context)
        case .redirectLoop:
            let port = context.channel.localAddress?.port ?? 0
            let location = "http://127.0.0.1:\(port)\(request.uri)"
            let redirect = FixtureResponse(
                status: 302,
                headers: [("Location", location), ("Content-Type", "text/plain; charset=utf-8")],
                body: Array("Found: \(location)".utf8)
            )
            send(redirect, version: version, context: context)
        case .closeConnection:
            stop()
            context.close(promise: nil)
        }
    }

    private static func resolve(_ base: FixtureRouteBase?, _ request: RecordedRequest) -> FixtureResponse {
        switch base {
        case .response(let response):
            return response
        case .handler(let handler):
            return handler(request)
        case nil:
            return .json(#"{"error":"notfound","key":"\#(jsonEscaped(request.path))"}"#, status: 404)
        }
    }

    // MARK: Writing

    private func writeHead(
        status: Int,
        headers: [(String, String)],
        length: Int,
        version: HTTPVersion,
        context: ChannelHandlerContext
    ) {
        var fields = HTTPHeaders(headers)
        fields.replaceOrAdd(name: "Content-Length", value: String(length))
        if !keepAlive {
            fields.replaceOrAdd(name: "Connection", value: "close")
        }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    private func writeBody(_ bytes: some Collection<UInt8>, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))))
    }

    private func send(_ response: FixtureResponse, version: HTTPVersion, context: ChannelHandlerContext) {
        writeHead(status: response.status, headers: response.headers, length: response.body.count, version: version, context: context)
        if !response.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        finish(context: context)
    }

    private func finish(context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    private func sendTruncated(version: HTTPVersion, context: ChannelHandlerContext) {
        let body = Array(Self.truncatedBody.utf8)
        writeHead(status: 200, headers: [("Content-Type", "application/json")], length: body.count, version: version, context: context)
        writeBody(body.prefix(body.count / 2), context: context).assumeIsolated().whenComplete { _ in
            self.stop()
            context.close(promise: nil)
        }
    }

    /// Writes one chunk, waits for it to leave, then hops through the event loop to write the next:
    /// at most one chunk is in memory and the stack never grows.
    private func writeHuge(offset: Int, total: Int, context: ChannelHandlerContext) {
        guard isOpen else { return }
        guard offset < total else {
            finish(context: context)
            return
        }
        let count = min(Self.chunkSize, total - offset)
        var buffer = context.channel.allocator.buffer(capacity: count)
        buffer.writeBytes(Self.filler[0..<count])
        // JSON-looking: `{"filler":"…"}` around a run of letters.
        let prefix = Array(#"{"filler":""#.utf8)
        let suffix = Array(#""}"#.utf8)
        if total >= prefix.count + suffix.count {
            for (index, byte) in prefix.enumerated() where index >= offset && index < offset + count {
                buffer.setInteger(byte, at: buffer.readerIndex + index - offset)
            }
            for (index, byte) in suffix.enumerated() {
                let position = total - suffix.count + index
                if position >= offset && position < offset + count {
                    buffer.setInteger(byte, at: buffer.readerIndex + position - offset)
                }
            }
        }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer)))).assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                context.eventLoop.assumeIsolated().execute {
                    self.writeHuge(offset: offset + count, total: total, context: context)
                }
            case .failure:
                self.stop()
                context.close(promise: nil)
            }
        }
    }

    private func drip(_ body: [UInt8], from index: Int, every interval: TimeAmount, context: ChannelHandlerContext) {
        guard isOpen else { return }
        guard index < body.count else {
            finish(context: context)
            return
        }
        pending = context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            self.pending = nil
            guard self.isOpen else { return }
            self.writeBody(body[index...index], context: context).assumeIsolated().whenComplete { result in
                switch result {
                case .success:
                    self.drip(body, from: index + 1, every: interval, context: context)
                case .failure:
                    self.stop()
                    context.close(promise: nil)
                }
            }
        }
    }

    // MARK: Canned bodies

    /// 64 KiB of letters; the pattern length divides the chunk size, so every chunk looks the same.
    private static let filler: [UInt8] = {
        let pattern = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
        return (0..<chunkSize).map { pattern[$0 % pattern.count] }
    }()

    static let malformedJSON = #"{"docs": [ {"key": "#

    static let htmlPage = """
        <!DOCTYPE html>
        <html><head><title>502 Bad Gateway</title></head>
        <body><h1>Bad Gateway</h1><p>The upstream server returned an invalid response.</p></body></html>

        """

    static let dripBody = #"{"numFound":1,"docs":[{"key":"/works/OL1W","title":"Slow"}]}"#

    static let truncatedBody: String = {
        let docs = (1...40).map { #"{"key":"/works/OL\#($0)W","title":"Truncated \#($0)"}"# }
        return #"{"numFound":40,"docs":["# + docs.joined(separator: ",") + "]}"
    }()

    static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
