/// `GET /openapi.yaml`: the OpenAPI 3.1 description of every route, written by hand in `openapi.yaml`
/// (compiled into the binary by the EmbedFiles plugin). A test checks
/// that its paths are exactly the routes the server answers (`APIRoutes.table`).
enum OpenAPIDocument {
    static let yaml = EmbeddedFiles.text("openapi.yaml") ?? ""
}
