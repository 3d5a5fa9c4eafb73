/// `openapi.yaml` beside this file, compiled in by the EmbedFiles plugin: the OpenAPI 3.1 document
/// `GET /openapi.yaml` serves byte for byte, and whose `components/schemas` are the one description
/// of every JSON document (`seek mcp` derives its tools' output schemas from them).
package enum OpenAPIFile {
    package static let yaml = EmbeddedFiles.text("Documents/openapi.yaml") ?? ""
}
