import Foundation
import Hummingbird
import SeekCore

/// The web UI's words in one language: `Web/strings/<code>.json` (`ui`: the pages' and the script's
/// strings, `{0}` `{1}` standing for what is put in; `labels`: readers' names of identifiers,
/// attributes and fields). A key a language lacks falls back to English.
struct WebStrings: Sendable {
    /// The language's code (`en`, `ko`): `<html lang>`.
    let code: String
    /// The language's own name ("English", "한국어"), for the switch.
    let name: String
    var ui: [String: String]
    let labels: [String: String]
    /// Sources' names where this language writes them otherwise (알라딘 for Aladin); by source id.
    var sourceNames: [String: String] = [:]

    /// The languages the pages are written in, English first (the fallback).
    static let supported: [WebStrings] = ["en", "ko"].compactMap(load)

    static let english: WebStrings = supported.first { $0.code == "en" } ?? WebStrings(code: "en", name: "English", ui: [:], labels: [:])

    static func named(_ code: String) -> WebStrings {
        supported.first { $0.code == code } ?? english
    }

    private static func load(_ code: String) -> WebStrings? {
        // Files of ours: a broken one is a bug the strings tests catch.
        guard let text = EmbeddedFiles.text("Web/strings/\(code).json"),
              let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              let ui = object["ui"] as? [String: String], let labels = object["labels"] as? [String: String]
        else { return nil }
        return WebStrings(code: code, name: object["language"] as? String ?? code, ui: ui, labels: labels,
                          sourceNames: object["sourceNames"] as? [String: String] ?? [:])
    }

    /// On a public instance the library (issue 49's `calibre` source) is the instance's catalogue, never
    /// a visitor's: its name and its badge say "this library", not "your library".
    mutating func speakForTheInstance() {
        for (key, instance) in [("owned", "ownedPublic"), ("ownedFormats", "ownedFormatsPublic")] { ui[key] = self[instance] }
        sourceNames["calibre"] = self["libraryPublic"]
    }

    /// The string `key`, English when this language lacks it, the key itself when no language has it.
    subscript(_ key: String) -> String {
        ui[key] ?? Self.english.ui[key] ?? key
    }

    /// The string `key` with `{0}`, `{1}`… replaced by `values` (put in as they are: the templates
    /// escape what they show).
    func format(_ key: String, _ values: String...) -> String {
        var text = self[key]
        for (index, value) in values.enumerated() {
            text = text.replacingOccurrences(of: "{\(index)}", with: value)
        }
        return text
    }

    /// "1 result", "20 results".
    func results(_ count: Int) -> String {
        count == 1 ? self["result1"] : format("resultsN", String(count))
    }

    /// A reader's name for an identifier, attribute or field (`openlibraryWork` → "Open Library
    /// work"): the table's, else the name split into words (`someFieldName` → "Some field name").
    func label(_ field: String) -> String {
        labels[field] ?? Self.english.labels[field] ?? Self.readable(field)
    }

    /// `camelCase`, `snake_case` or `kebab-case` as words, the first capitalised; an acronym stays
    /// one (`shortURLText` → "Short URL text").
    static func readable(_ name: String) -> String {
        let characters = Array(name)
        var words: [String] = []
        var word = ""
        for (index, character) in characters.enumerated() {
            if character == "_" || character == "-" || character == " " || character == "." {
                if !word.isEmpty { words.append(word) }
                word = ""
                continue
            }
            if character.isUppercase, !word.isEmpty, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    words.append(word)
                    word = ""
                }
            }
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        let shown = words.map { word in
            word.count > 1 && word.allSatisfy({ $0.isUppercase || $0.isNumber }) ? word : word.lowercased()
        }
        guard let first = shown.first else { return name }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + shown.dropFirst()).joined(separator: " ")
    }

    /// Every `ui` string as a JSON object the script reads (`<script type="application/json">`):
    /// `<`, `>` and `&` written as escapes, so nothing in it can end the element.
    var scriptJSON: String {
        var merged = Self.english.ui
        merged.merge(ui) { _, own in own }
        guard let data = try? JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys]),
              let text = String(data: data, encoding: .utf8)
        else { return "{}" }
        return text.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
    }
}

/// Which language a page is written in: `?lang=` (which the switch on every page links to, and
/// which is then remembered in the `seek_lang` cookie), else the cookie, else the best of the
/// browser's `Accept-Language`, else English.
enum WebLanguage {
    static let cookieName = "seek_lang"

    static func choose(_ request: Request) -> (strings: WebStrings, remember: Bool) {
        let codes = WebStrings.supported.map(\.code)
        if let asked = request.uri.queryParameters.get("lang")?.lowercased(), codes.contains(asked) {
            return (WebStrings.named(asked), true)
        }
        if let kept = cookie(request.headers[values: .cookie]), codes.contains(kept) {
            return (WebStrings.named(kept), false)
        }
        return (WebStrings.named(preferred(request.headers[.acceptLanguage], among: codes) ?? "en"), false)
    }

    /// The value of the `seek_lang` cookie among `headers` (each a `Cookie` header's value).
    static func cookie(_ headers: [String]) -> String? {
        for header in headers {
            // Split on scalars, as the visitor cookie is: a character that joins the next cannot hide a ';'.
            for pair in header.fields(separatedBy: ";") {
                let parts = pair.fields(separatedBy: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmed() == cookieName else { continue }
                return parts[1].trimmed().lowercased()
            }
        }
        return nil
    }

    /// The supported code the `Accept-Language` value ranks highest (`ko-KR,ko;q=0.9,en;q=0.5` → `ko`).
    static func preferred(_ header: String?, among codes: [String]) -> String? {
        guard let header, header.utf8.count <= 1024 else { return nil }
        var best: (code: String, quality: Double)?
        for (position, entry) in header.fields(separatedBy: ",").prefix(32).enumerated() {
            let parts = entry.fields(separatedBy: ";").map { $0.trimmed() }
            guard let tag = parts.first?.lowercased(), !tag.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            let primary = String(tag.fields(separatedBy: "-").first ?? "")
            guard quality > 0, codes.contains(primary) else { continue }
            // Equal qualities: the one listed first.
            let ranked = quality - Double(position) * 1e-6
            if ranked > (best?.quality ?? -1) { best = (primary, ranked) }
        }
        return best?.code
    }

    /// The `Set-Cookie` value that remembers `code` for a year.
    static func setCookie(_ code: String) -> String {
        "\(cookieName)=\(code); Path=/; Max-Age=31536000; SameSite=Lax"
    }
}
