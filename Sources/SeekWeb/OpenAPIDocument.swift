import SeekRuntime

/// `GET /openapi.yaml`: the OpenAPI 3.1 description of every route, written by hand in SeekSession's
/// `Documents/openapi.yaml` (where `seek mcp` reads the documents' schemas too). A test checks
/// that its paths are exactly the routes the server answers (`APIRoutes.table`).
enum OpenAPIDocument {
    static let yaml = OpenAPIFile.yaml
}
