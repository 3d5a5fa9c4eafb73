import Foundation
import SeekKit
import SeekLoopback
import SeekResilience
import SeekRuntime
import SeekTesting
import Testing

/// Open Library works for any id (`/ol/works/OL1001W.json` is "Book OL1001W" by Roald Dahl), for tests
/// that add many favourites.
enum ManyWorks {
    static func install(on server: FixtureServer) {
        server.route("/ol/works/*") { request in
            let name = request.path.split(separator: "/").last.map(String.init) ?? ""
            let id = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
            return .json("""
                {"title": "Book \(id)", "key": "/works/\(id)", "type": {"key": "/type/work"},
                 "authors": [{"author": {"key": "/authors/OL34184A"}}], "covers": [6498519]}
                """)
        }
        server.route("/ol/authors/OL34184A.json", .json(OpenLibrarySamples.author))
    }
}

@Suite("Favorites, history and the response cache across seek runs")
struct UserStateCLITests {
    @Test("favourites added by one run are listed by the next with their titles, even offline")
    func favoritesPersist() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let added = await harness.run(["favorites", "add", "openlibrary:OL45804W"])
        #expect(added.code == 0, "stderr: \(added.stderr)")
        #expect(added.stdout.contains("Fantastic Mr Fox"))
        try await harness.server.shutdown()

        let listed = await harness.run(["favorites", "list", "--format", "json"])
        let table = await harness.run(["favorites", "list"])
        try? FileManager.default.removeItem(at: harness.home)
        #expect(listed.code == 0, "stderr: \(listed.stderr)")
        let entries = try #require(listed.json?["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        let fox = try #require(entries.first)
        #expect(fox["id"] as? String == "openlibrary:OL45804W")
        #expect(fox["title"] as? String == "Fantastic Mr Fox")
        #expect(fox["creators"] as? [String] == ["Roald Dahl"])
        #expect(fox["kind"] as? String == "book")
        #expect(fox["provider"] as? String == "openlibrary")
        #expect((fox["imageURL"] as? String)?.contains("6498519") == true)
        #expect(fox["addedAt"] is String)
        #expect(table.stdout.contains("Fantastic Mr Fox"))
    }

    @Test("adding a favourite twice changes nothing")
    func addTwice() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        _ = await harness.run(["favorites", "add", "openlibrary:OL45804W"])
        let again = await harness.run(["favorites", "add", "openlibrary:OL45804W"])
        let listed = await harness.run(["favorites", "list", "--format", "json"])
        try await harness.stop()
        #expect(again.code == 0)
        #expect(again.stdout.contains("already a favorite"))
        #expect((listed.json?["entries"] as? [Any])?.count == 1)
    }

    @Test("an unknown id is a clear error and stores nothing")
    func unknownID() async throws {
        let harness = try await CLIHarness.start()
        harness.server.route("/ol/works/OL404W.json", .json(#"{"error": "notfound", "key": "/works/OL404W"}"#, status: 404))
        let added = await harness.run(["favorites", "add", "openlibrary:OL404W"])
        let unknownProvider = await harness.run(["favorites", "add", "nowhere:OL1W"])
        let malformed = await harness.run(["favorites", "add", "OL404W"])
        let listed = await harness.run(["favorites", "list", "--format", "json"])
        try await harness.stop()
        #expect(added.code == 4)
        #expect(added.stderr.contains("openlibrary:OL404W") && added.stderr.contains("not found"), "stderr: \(added.stderr)")
        #expect(unknownProvider.code == 64)
        #expect(unknownProvider.stderr.contains("unknown provider 'nowhere'"))
        #expect(malformed.code == 64)
        #expect((listed.json?["entries"] as? [Any])?.isEmpty == true)
    }

    @Test("remove and toggle change the list; removing a non-favourite is only a note")
    func removeAndToggle() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        ManyWorks.install(on: harness.server)
        _ = await harness.run(["favorites", "add", "openlibrary:OL45804W", "openlibrary:OL1W"])
        let removed = await harness.run(["favorites", "remove", "openlibrary:OL1W"])
        let removedAgain = await harness.run(["favorites", "remove", "openlibrary:OL1W"])
        let toggledOff = await harness.run(["favorites", "toggle", "openlibrary:OL45804W"])
        let toggledOn = await harness.run(["favorites", "toggle", "openlibrary:OL2W"])
        let listed = await harness.run(["favorites", "list", "--format", "json"])
        try await harness.stop()
        #expect(removed.stdout.contains("removed openlibrary:OL1W"))
        #expect(removedAgain.code == 0 && removedAgain.stderr.contains("not a favorite"))
        #expect(toggledOff.stdout.contains("removed openlibrary:OL45804W"))
        #expect(toggledOn.stdout.contains("added openlibrary:OL2W"))
        let ids = (listed.json?["entries"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["openlibrary:OL2W"])
    }

    @Test("13 searches leave a de-duplicated, most-recent-first history of at most 10")
    func historyBound() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let queries = (1...11).map { "query \($0)" } + ["query 3", "Query  5"]
        for query in queries {
            let result = await harness.run(["search", query, "--providers", "openlibrary"])
            #expect(result.code == 0, "stderr: \(result.stderr)")
        }
        let history = await harness.run(["history", "--format", "json"])
        let table = await harness.run(["history"])
        try await harness.stop()
        let entries = try #require(history.json?["entries"] as? [[String: Any]])
        #expect(entries.compactMap { $0["query"] as? String } == [
            "Query 5", "query 3", "query 11", "query 10", "query 9", "query 8", "query 7", "query 6", "query 4", "query 2",
        ])
        #expect(entries.first?["providers"] as? [String] == ["openlibrary"])
        #expect(entries.first?["searchedAt"] is String)
        #expect(table.stdout.contains("query 11"))
    }

    @Test("the history size comes from SEEK_HISTORY_LIMIT, and --clear empties it")
    func historyLimitAndClear() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let limit = ["SEEK_HISTORY_LIMIT": "3"]
        for n in 1...5 { _ = await harness.run(["search", "query \(n)", "--providers", "openlibrary"], environment: limit) }
        let history = await harness.run(["history", "--format", "json"], environment: limit)
        let cleared = await harness.run(["history", "--clear"])
        let after = await harness.run(["history", "--format", "json"])
        try await harness.stop()
        let queries = (history.json?["entries"] as? [[String: Any]])?.compactMap { $0["query"] as? String }
        #expect(queries == ["query 5", "query 4", "query 3"])
        #expect(cleared.code == 0)
        #expect((after.json?["entries"] as? [Any])?.isEmpty == true)
    }

    @Test("a second identical search within the TTL makes no upstream request; --no-cache makes one")
    func searchCacheHit() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let first = await harness.run(["search", "harbor", "--providers", "openlibrary", "--format", "json"])
        let second = await harness.run(["search", "harbor", "--providers", "openlibrary", "--format", "json"])
        let afterTwo = harness.server.requestCount(path: "/ol/search.json")
        let bypassed = await harness.run(["search", "harbor", "--providers", "openlibrary", "--no-cache"])
        let afterBypass = harness.server.requestCount(path: "/ol/search.json")
        try await harness.stop()
        #expect(first.code == 0 && second.code == 0)
        #expect(afterTwo == 1)
        #expect(afterBypass == 2)
        #expect(bypassed.code == 0)
        let firstIDs = (first.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        let secondIDs = (second.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(firstIDs == secondIDs && firstIDs?.isEmpty == false)
        let outcome = (second.json?["providers"] as? [[String: Any]])?.first
        #expect(outcome?["stale"] as? Bool == false)
        #expect(outcome?["status"] as? String == "ok")
    }

    @Test("with the upstream down (connection refused), an expired search is served from the cache marked stale")
    func staleWhenDown() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let ttl = ["SEEK_SEARCH_CACHE_TTL": "1"]
        let first = await harness.run(["search", "harbor", "--providers", "openlibrary"], environment: ttl)
        try await Task.sleep(for: .milliseconds(1100))
        try await harness.server.shutdown()
        let down = await harness.run(
            ["search", "harbor", "--providers", "openlibrary", "--format", "json", "--timeout", "2"], environment: ttl)
        let bypassed = await harness.run(
            ["search", "harbor", "--providers", "openlibrary", "--no-cache", "--timeout", "2"], environment: ttl)
        try? FileManager.default.removeItem(at: harness.home)
        #expect(first.code == 0)
        let outcome = try #require((down.json?["providers"] as? [[String: Any]])?.first, "stdout: \(down.stdout)")
        #expect(outcome["stale"] as? Bool == true)
        // AsyncHTTPClient keeps retrying a refused connection until the deadline: the failure is a timeout.
        #expect(["timeout", "error"].contains(outcome["status"] as? String))
        #expect(outcome["error"] is String)
        #expect((down.json?["items"] as? [Any])?.count == 2)
        #expect(down.code == 4)
        #expect(down.stderr.contains("cached"), "stderr: \(down.stderr)")
        #expect(bypassed.code == 4)
        #expect(bypassed.stdout.contains("Fantastic Mr Fox") == false)
    }

    @Test("a TTL of 0 from the environment turns the search cache off")
    func ttlZero() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let off = ["SEEK_SEARCH_CACHE_TTL": "0"]
        _ = await harness.run(["search", "harbor", "--providers", "openlibrary"], environment: off)
        _ = await harness.run(["search", "harbor", "--providers", "openlibrary"], environment: off)
        let count = harness.server.requestCount(path: "/ol/search.json")
        let invalid = await harness.run(["search", "harbor"], environment: ["SEEK_SEARCH_CACHE_TTL": "soon"])
        try await harness.stop()
        #expect(count == 2)
        #expect(invalid.code == 64)
        #expect(invalid.stderr.contains("SEEK_SEARCH_CACHE_TTL"))
    }

    @Test("a detail is cached, and served with a stderr note when the provider is down")
    func detailCache() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        _ = await harness.run(["detail", "openlibrary:OL45804W"])
        let cached = await harness.run(["detail", "openlibrary:OL45804W"])
        let requests = harness.server.requestCount(path: "/ol/works/OL45804W.json")
        try await harness.server.shutdown()
        let expired = ["SEEK_DETAIL_CACHE_TTL": "0.001"]
        let down = await harness.run(["detail", "openlibrary:OL45804W", "--timeout", "2"], environment: expired)
        try? FileManager.default.removeItem(at: harness.home)
        #expect(requests == 1)
        #expect(cached.stdout.contains("Fantastic Mr Fox"))
        #expect(down.code == 0, "stderr: \(down.stderr)")
        #expect(down.stdout.contains("Fantastic Mr Fox"))
        #expect(down.stderr.contains("cached record"))
    }

    @Test("two seek processes adding 15 favourites each at the same time leave all 30",
          .enabled(if: SeekBinary.url != nil, "the seek executable was not built"))
    func concurrentProcesses() async throws {
        let harness = try await CLIHarness.start()
        ManyWorks.install(on: harness.server)
        let environment = harness.environment
        let batches = [(1001...1015), (1016...1030)].map { range in range.map { "openlibrary:OL\($0)W" } }
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for ids in batches {
                group.addTask { try await offThePool { try SeekBinary.run(["favorites", "add"] + ids, environment: environment) } }
            }
            return try await group.reduce(into: [RunResult]()) { $0.append($1) }
        }
        let listed = await harness.run(["favorites", "list", "--format", "json"])
        try await harness.stop()
        for result in results { #expect(result.code == 0, "stderr: \(result.stderr)") }
        let entries = try #require(listed.json?["entries"] as? [[String: Any]])
        let ids = Set(entries.compactMap { $0["id"] as? String })
        #expect(ids == Set(batches.joined()))
        #expect(entries.allSatisfy { ($0["title"] as? String)?.hasPrefix("Book OL") == true })
    }
}
