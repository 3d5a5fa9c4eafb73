import Mustache

/// The web UI's mustache templates, `Web/templates/*.mustache` (the EmbedFiles plugin compiles them
/// into the binary). Every `{{value}}` is HTML-escaped; `{{{body}}}` is only ever a page
/// these templates rendered.
enum WebTemplates {
    /// The templates by name, parsed once.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in sources {
            // The templates are files of ours: a parse error is a bug the page tests catch.
            if let template = try? MustacheTemplate(string: text) {
                library.register(template, named: name)
            }
        }
        return library
    }()

    /// Each template's name (its file's, without `.mustache`) and text.
    static let sources: [(String, String)] = EmbeddedFiles.paths.compactMap { path in
        let folder = "Web/templates/", suffix = ".mustache"
        guard path.hasPrefix(folder), path.hasSuffix(suffix), let text = EmbeddedFiles.text(path) else { return nil }
        return (String(path.dropFirst(folder.count).dropLast(suffix.count)), text)
    }
}
