import Foundation
@testable import SeekCLI
import SeekImageCache
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek detail, image and providers")
struct DetailImageProvidersTests {
    @Test("detail shows the work with its description and author names")
    func detailShowsWork() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["detail", "openlibrary:OL45804W"])
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Fantastic Mr Fox"))
        #expect(result.stdout.contains("Roald Dahl"))
        #expect(result.stdout.contains("The main character of Fantastic Mr. Fox"))
    }

    @Test("detail as JSON is one item object with its full fields and sources")
    func detailJSON() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let result = await harness.run(["detail", "openlibrary:OL45804W", "--format", "json"])
        try await harness.stop()
        let json = try #require(result.json)
        #expect(json["id"] as? String == "openlibrary:OL45804W")
        #expect(json["creators"] as? [String] == ["Roald Dahl"])
        #expect((json["description"] as? String)?.isEmpty == false)
        #expect((json["sources"] as? [[String: Any]])?.count == 1)
    }

    @Test("detail of an unknown work exits 4 naming the provider")
    func detailNotFound() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "openlibrary:OL999W"])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.stderr.contains("openlibrary"))
        #expect(result.stderr.contains("not found"))
    }

    @Test("detail of a work Open Library no longer has says so in words first, then the cause")
    func detailNotFoundInWords() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["detail", "openlibrary:OL999W"])
        try await harness.stop()
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "seek: Open Library no longer has this book.", "stderr: \(result.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("seek: cause: openlibrary: not found") == true, "stderr: \(result.stderr)")
    }

    @Test("image -o writes the cover's exact bytes")
    func imageWritesExactBytes() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let file = harness.home.appendingPathComponent("fox.jpg")
        let result = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let written = try? Data(contentsOf: file)
        let request = harness.server.requests.first { $0.path.hasPrefix("/covers/") }
        try await harness.stop()
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(written == Data(OpenLibrarySamples.coverBytes))
        #expect(request?.queryValue("default") == "false")
    }

    /// `seek image openlibrary:OL45804W -o <file>` while the cover answers with `fault`: what it printed,
    /// and the file it wrote as text (the cover Seek draws is SVG; never the source's reply).
    private static func imageWhileCover(_ fault: FixtureFault, file name: String) async throws -> (result: RunResult, written: String?) {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        harness.server.route("/covers/b/id/6498519-L.jpg", fault: fault)
        let file = harness.home.appendingPathComponent(name)
        let result = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        let written = (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) }
        try await harness.stop()
        return (result, written)
    }

    @Test("a missing cover (404): the drawn cover is written, exit 0, and stderr names the source and the 404")
    func missingCoverDrawsOne() async throws {
        let (result, written) = try await Self.imageWhileCover(.status(404, body: "Not Found"), file: "cover.svg")
        #expect(result.code == 0, "stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("seek: openlibrary: not found: no image: HTTP 404") == true, "stderr: \(result.stderr)")
        #expect(lines.last?.contains("in place of the source's image") == true, "stderr: \(result.stderr)")
        #expect(written?.hasPrefix("<svg") == true)
        #expect(written?.contains("Fantastic Mr Fox") == true, "the cover is drawn from the record")
        #expect(written?.contains("Not Found") == false)
    }

    @Test("-o with another format's extension: the drawn SVG is written as it is, and stderr says to save it as .svg")
    func extensionThatLiesIsNamed() async throws {
        let (result, written) = try await Self.imageWhileCover(.status(404, body: "Not Found"), file: "cover.jpg")
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(written?.hasPrefix("<svg") == true)
        #expect(result.stderr.contains("note: the image is SVG, not what .jpg says: save it as .svg"), "stderr: \(result.stderr)")
        #expect(ImageCommand.formatMismatch("a/b.JPEG", format: .jpeg).isEmpty)
        #expect(ImageCommand.formatMismatch("cover.png", format: .png).isEmpty)
        #expect(ImageCommand.formatMismatch("cover", format: .svg).isEmpty, "a name without an extension claims nothing")
        #expect(ImageCommand.formatMismatch("cover.bin", format: .webp).isEmpty)
        #expect(ImageCommand.formatMismatch("cover.gif", format: .png).contains("the image is PNG, not what .gif says"))
    }

    @Test("an HTML page instead of an image is refused: the drawn cover is written and stderr says the reply is no image")
    func htmlIsNotAnImage() async throws {
        let (result, written) = try await Self.imageWhileCover(.html, file: "page.svg")
        #expect(result.code == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.hasPrefix("seek: openlibrary: not found: no image: the reply (text/html"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("is not a JPEG, PNG, GIF or WebP image"), "stderr: \(result.stderr)")
        #expect(written?.hasPrefix("<svg") == true)
        #expect(written?.lowercased().contains("<html") == false, "the HTML page is never written")
    }

    @Test("neither record nor image to be had: exit 4, the detail's failure named, no file")
    func nothingToDrawWritesNothing() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL45804W.json", fault: .status(404, body: "gone"))
        let file = harness.home.appendingPathComponent("none.svg")
        let result = await harness.run(["image", "openlibrary:OL45804W", "-o", file.path])
        try await harness.stop()
        #expect(result.code == 4)
        #expect(result.stderr.hasPrefix("seek: openlibrary: not found"), "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("providers lists every provider with kinds, capabilities, configuration and endpoint, never a key")
    func providersJSON() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["providers", "--format", "json"], environment: ["SEEK_GIPHY_API_KEY": "giphy-secret-key-xyz"])
        try await harness.stop()
        #expect(result.code == 0)
        let providers = try #require(result.json?["providers"] as? [[String: Any]])
        // Every source the composition root ships, in its order.
        #expect(providers.compactMap { $0["id"] as? String } == CompositionRoot.builtInProviders.map(\.id))
        #expect(providers.count >= 9)
        let giphy = try #require(providers.first { $0["id"] as? String == "giphy" })
        #expect(giphy["configured"] as? Bool == true)
        #expect((giphy["capabilities"] as? [String])?.contains("trending") == true)
        let aladin = try #require(providers.first { $0["id"] as? String == "aladin" })
        #expect(aladin["configured"] as? Bool == false)
        #expect(!result.stdout.contains("giphy-secret-key-xyz"))
    }

    @Test("--version prints the version")
    func version() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["--version"])
        try await harness.stop()
        #expect(result.code == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }
}
