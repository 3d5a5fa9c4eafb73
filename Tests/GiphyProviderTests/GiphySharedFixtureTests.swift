import Foundation
import GiphyProvider
import SeekCore
import SeekKit
import SeekLoopback
import SeekTesting
import Testing

/// The recorded real GIPHY bodies in ../shared/fixtures/giphy, run through the real provider over HTTP.
@Suite("GIPHY shared fixtures", .enabled(if: SharedFixtures.directory != nil))
struct GiphySharedFixtureTests {
    /// A recorded list body, the endpoint it came from, and what it holds.
    struct ListFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let path: String
        let count: Int
        let total: Int
        var testDescription: String { file }
    }

    static let lists = [
        ListFixture(file: "search_limit50_2023-09_rexyonist.json", path: "/v1/gifs/search", count: 50, total: 2433),
        ListFixture(file: "search_2017-05_lukewinikates_legacy.json", path: "/v1/gifs/search", count: 25, total: 6760),
        ListFixture(file: "trending_limit50_2023-09_rexyonist.json", path: "/v1/gifs/trending", count: 50, total: 4235),
        ListFixture(file: "trending_limit25_2019-08_netguru_escaped_slashes.json", path: "/v1/gifs/trending", count: 25, total: 112_122),
    ]

    @Test("every recorded list body decodes into items with ids, titles and images", arguments: lists)
    func listDecodes(fixture: ListFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file))
        try await withGiphy { provider, server in
            server.route(fixture.path, response)
            let page = fixture.path.hasSuffix("trending")
                ? try await provider.trending(limit: fixture.count)
                : try await provider.search(SearchRequest(query: "cat", limit: fixture.count))
            #expect(page.items.count == fixture.count)
            #expect(page.total == fixture.total)
            #expect(page.next == String(fixture.count))
            for item in page.items {
                #expect(item.id.provider == "giphy")
                #expect(item.identifiers.other["giphy"] == item.id.value)
                #expect(!item.title.isEmpty)
                #expect(item.images[.small] != nil)
                #expect(item.images[.medium] != nil)
                #expect(item.images[.original] != nil)
                #expect(item.url != nil)
                // One recorded GIF carries the `1970-01-01` sentinel: no year rather than a wrong one.
                #expect(item.year.map { (2000...2030).contains($0) } ?? (item.id.value == "TTqOkDAHo5VM4"))
            }
        }
    }

    @Test("the 2023 search maps its first GIF exactly, media query strings kept")
    func firstGIFOf2023Search() async throws {
        let response = try #require(try sharedFixture("search_limit50_2023-09_rexyonist.json"))
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", response)
            let item = try #require(try await provider.search(SearchRequest(query: "batman", limit: 50)).items.first)
            #expect(item.id.description == "giphy:l0NwGpoOVLTAyUJSo")
            #expect(item.title == "Ben Affleck Rain GIF by Batman v Superman: Dawn of Justice")
            #expect(item.creators == ["batmanvsuperman"])
            #expect(item.year == 2016)
            #expect(item.url?.absoluteString == "https://giphy.com/gifs/batmanvsuperman-batman-v-superman-bat-signal-l0NwGpoOVLTAyUJSo")
            let original = try #require(item.images[.original])
            #expect(original.url.absoluteString == "https://media0.giphy.com/media/l0NwGpoOVLTAyUJSo/giphy.gif?cid=9c0c14d2u97f5uuqxa8xitmppjlxqwwqr5onlcthid79if4z&ep=v1_gifs_search&rid=giphy.gif&ct=g")
            #expect(original.width == 500)
            #expect(original.height == 281)
            #expect(item.images[.small]?.width == 100)
            #expect(item.images[.small]?.url.absoluteString.contains("/100w.gif?cid=") == true)
        }
    }

    @Test("the 2019 trending GIFs with empty titles fall back to slug or id")
    func untitled2019GIFs() async throws {
        let response = try #require(try sharedFixture("trending_limit25_2019-08_netguru_escaped_slashes.json"))
        try await withGiphy { provider, server in
            server.route("/v1/gifs/trending", response)
            let items = try await provider.trending(limit: 25).items
            let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id.value, $0) })
            #expect(byID["LPy3YEfSVMs8SBhhuv"]?.title == "LPy3YEfSVMs8SBhhuv")
            #expect(byID["U3z0F1WGEc5BobpRDW"]?.title == "meryl streep overrated over rated")
            #expect(byID["LPy3YEfSVMs8SBhhuv"]?.creators == [])
        }
    }

    @Test("the 2016 /random body (flat legacy shape, data as an object) decodes as a detail")
    func legacyRandomAsDetail() async throws {
        let response = try #require(try sharedFixture("random_single_object_2016_hystrix_legacy.json"))
        try await withGiphy { provider, server in
            server.route("/v1/gifs/xTKxzn0lHVPuE", response)
            let detail = try await provider.detail(ItemID(provider: "giphy", value: "xTKxzn0lHVPuE"))
            #expect(detail.item.id.value == "xTKxzn0lHVPuE")
            #expect(detail.item.title == "make mexico internacional")
            #expect(detail.item.images[.original]?.url.absoluteString == "http://media0.giphy.com/media/xTKxzn0lHVPuE/giphy.gif")
            #expect(detail.item.images[.original]?.width == 320)
            #expect(detail.item.images[.original]?.height == 180)
            #expect(detail.item.images[.small]?.url.absoluteString == "http://media0.giphy.com/media/xTKxzn0lHVPuE/100w.gif")
            #expect(detail.item.images[.medium]?.width == 200)
            #expect(detail.attributes["mp4"] == "http://media0.giphy.com/media/xTKxzn0lHVPuE/giphy.mp4")
        }
    }

    @Test("the recorded search without q is an empty page")
    func emptySearch() async throws {
        let response = try #require(try sharedFixture("search_empty_no_q_param_inline.json"))
        try await withGiphy { provider, server in
            server.route("/v1/gifs/search", response)
            let page = try await provider.search(SearchRequest(query: "jerry"))
            #expect(page.items.isEmpty)
            #expect(page.total == 0)
            #expect(page.next == nil)
        }
    }

    /// A recorded error body, the HTTP status it came with, and the error it must become.
    struct ErrorFixture: Sendable, CustomTestStringConvertible {
        let file: String
        let status: Int
        let kind: SeekError.Kind
        let message: String
        var testDescription: String { file }
    }

    static let errors = [
        ErrorFixture(file: "error_401_unauthorized_2022_issue.json", status: 401, kind: .unauthorized, message: "Unauthorized"),
        ErrorFixture(file: "error_403_forbidden_legacy_2014_issue.json", status: 403, kind: .unauthorized, message: "Forbidden"),
        ErrorFixture(file: "error_403_invalid_credentials_legacy_2018_issue.json", status: 403, kind: .unauthorized,
                     message: "Invalid authentication credentials"),
        ErrorFixture(file: "error_404_gif_by_id_2021_issue.json", status: 404, kind: .notFound, message: "Not Found"),
        ErrorFixture(file: "error_429_rate_limit_2021_issue.json", status: 429, kind: .rateLimited(retryAfterSeconds: nil),
                     message: "API rate limit exceeded"),
        ErrorFixture(file: "error_429_rate_limit_legacy_2019_issue.json", status: 429, kind: .rateLimited(retryAfterSeconds: nil),
                     message: "API rate limit exceeded"),
        ErrorFixture(file: "synthetic_empty_gifs_by_ids_2020_issue.json", status: 200, kind: .network, message: "synthetic"),
    ]

    @Test("every recorded error body becomes the right typed error with GIPHY's message", arguments: errors)
    func errorBodies(fixture: ErrorFixture) async throws {
        let response = try #require(try sharedFixture(fixture.file, status: fixture.status))
        try await withGiphy { provider, server in
            server.route("/v1/gifs/*", response)
            let search = await seekError { _ = try await provider.search(SearchRequest(query: "cat")) }
            let detail = await seekError { _ = try await provider.detail(ItemID(provider: "giphy", value: "xH0BU4VyKF40qLqjma")) }
            for error in [search, detail] {
                #expect(error?.kind == fixture.kind)
                #expect(error?.provider == "giphy")
                #expect(error?.detail.contains(fixture.message) == true)
                #expect(error.map { !String(describing: $0).contains(fakeKey) } == true)
            }
        }
    }

    @Test("every .json file in the shared GIPHY folder is covered by a test above")
    func everyFixtureCovered() throws {
        let directory = try #require(SharedFixtures.directory).appendingPathComponent("giphy")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        let covered = Set(Self.lists.map(\.file) + Self.errors.map(\.file) + [
            "random_single_object_2016_hystrix_legacy.json", "search_empty_no_q_param_inline.json",
        ])
        #expect(Set(files).subtracting(covered).isEmpty, "uncovered fixtures: \(Set(files).subtracting(covered).sorted())")
    }
}
