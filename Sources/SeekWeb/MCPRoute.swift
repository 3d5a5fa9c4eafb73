import Foundation
import HTTPTypes
import Hummingbird
import MCP
import SeekMCP
import SeekRuntime

/// `POST /mcp`: Seek's MCP server over Streamable HTTP (the SDK's stateless transport: each POST
/// carries JSON-RPC and gets its JSON answer), on the server's own session.
actor MCPEndpoint {
    private let session: SeekSession
    private var transport: StatelessHTTPServerTransport?
    private var server: Server?

    init(session: SeekSession) {
        self.session = session
    }

    /// The transport, with the MCP server started on it at the first request.
    private func started() async throws -> StatelessHTTPServerTransport {
        if let transport { return transport }
        let transport = StatelessHTTPServerTransport()
        server = try await SeekMCPServer(session: session).start(on: transport)
        self.transport = transport
        return transport
    }

    /// Answers one HTTP request to `/mcp`.
    func respond(to request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let answer = await (try started()).handleRequest(MCP.HTTPRequest(
            method: request.method.rawValue, headers: headers, body: Data(body.readableBytesView), path: request.uri.path))
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { fields[fieldName] = value }
        }
        let status = HTTPResponse.Status(code: answer.statusCode)
        switch answer {
        case .stream(let stream, _):
            return Response(status: status, headers: fields, body: ResponseBody(asyncSequence: stream.map { ByteBuffer(bytes: $0) }))
        default:
            let data = answer.bodyData ?? Data()
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    /// Stops the MCP server, if it was started.
    func stop() async {
        await server?.stop()
    }
}
