/// The script and style sheet of the web UI (`Web/app.js`, a plain ES module, and `Web/app.css`),
/// served from `/static/`. The EmbedFiles plugin compiles them into the binary.
enum WebAssets {
    static let script = EmbeddedFiles.text("Web/app.js") ?? ""

    static let styles = EmbeddedFiles.text("Web/app.css") ?? ""
}
