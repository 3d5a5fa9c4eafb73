import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SeekCore
import SeekLoopback
import SeekWeb
import SeekRuntime
import SeekTesting
import Testing

@Suite("seek serve with a shared database (SEEK_DATABASE_URL)")
struct SharedStoreRouteTests {
    /// A PostgreSQL that is down: nothing listens on port 1.
    static let downDatabase = ["SEEK_DATABASE_URL": "postgres://postgres:topsecret@127.0.0.1:1/seek?sslmode=disable"]

    @Test("healthz names the embedded store when no database is set")
    func healthzEmbedded() async throws {
        let harness = try await ServerHarness.start()
        let health = try await harness.withRouter { client in
            try await client.execute(uri: "/healthz", method: .get) { $0 }
        }
        try await harness.stop()
        #expect(health.status == .ok)
        let store = health.json?["store"] as? [String: Any]
        #expect(store?["kind"] as? String == "sqlite")
        #expect(store?["reachable"] as? Bool == true)
    }

    @Test("with the database down a search still answers, from the live providers")
    func searchWithDatabaseDown() async throws {
        let harness = try await ServerHarness.start(environment: Self.downDatabase)
        harness.serveBooks()
        let response = try await harness.withRouter { client in
            try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get) { $0 }
        }
        try await harness.stop()
        #expect(response.status == .ok)
        #expect((response.json?["items"] as? [Any])?.isEmpty == false)
    }

    @Test("with the database down a favourite write is 503 store_unavailable, names no password, and nothing is listed")
    func favouriteWithDatabaseDown() async throws {
        let harness = try await ServerHarness.start(environment: Self.downDatabase)
        harness.serveBooks()
        let (put, health) = try await harness.withRouter { client in
            let put = try await client.execute(uri: "/api/v1/favorites/openlibrary:OL1W", method: .put) { $0 }
            let health = try await client.execute(uri: "/healthz", method: .get) { $0 }
            return (put, health)
        }
        try await harness.stop()
        #expect(put.status == .serviceUnavailable)
        let body = put.json?["error"] as? [String: Any]
        #expect(body?["code"] as? String == "store_unavailable")
        #expect((body?["message"] as? String)?.contains("topsecret") == false)
        let store = health.json?["store"] as? [String: Any]
        #expect(store?["kind"] as? String == "postgresql")
        #expect(store?["reachable"] as? Bool == false)
    }

    @Test("two servers on one database share favourites and cursors",
          .enabled(if: TestPostgres.url != nil, "SEEK_TEST_DATABASE_URL is not set: start a PostgreSQL server (Tests/support/postgres.sh) and set it"))
    func twoServersShare() async throws {
        let url = try TestPostgres.freshDatabase("serve")
        let first = try await ServerHarness.start(environment: ["SEEK_DATABASE_URL": url])
        let second = try await ServerHarness.start(environment: ["SEEK_DATABASE_URL": url])
        for harness in [first, second] {
            ProviderSamples.serveManyWorks(harness.fixtures, count: 12)
            harness.fixtures.route("/ol/works/OL45804W.json", .json(OpenLibrarySamples.work))
        }
        let added = try await first.withRouter { client in
            try await client.execute(uri: "/api/v1/favorites/openlibrary:OL45804W", method: .put) { $0.status }
        }
        let page1 = try await first.withRouter { client in
            try await client.execute(uri: "/api/v1/search?q=works&providers=openlibrary&limit=5", method: .get) { $0 }
        }.json
        let token = try #require(page1?["next"] as? String)
        let (listedResponse, page2Response) = try await second.withRouter { client in
            let listed = try await client.execute(uri: "/api/v1/favorites", method: .get) { $0 }
            let page2 = try await client.execute(uri: "/api/v1/search?q=works&providers=openlibrary&limit=5&cursor=\(token)", method: .get) { $0 }
            return (listed, page2)
        }
        let listed = listedResponse.json
        let page2 = (page2Response.status, page2Response.json)
        try await first.stop()
        try await second.stop()
        #expect(added == .ok)
        #expect(((listed?["entries"] as? [[String: Any]])?.compactMap { $0["id"] as? String }) == ["openlibrary:OL45804W"])
        #expect(page2.0 == .ok)
        let ids1 = Set(((page1?["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
        let ids2 = Set(((page2.1?["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
        #expect(ids1.count == 5)
        #expect(ids2.count == 5)
        #expect(ids1.isDisjoint(with: ids2))
    }

    @Test("two public servers on one database share each client's search budget",
          .enabled(if: TestPostgres.url != nil, "SEEK_TEST_DATABASE_URL is not set: start a PostgreSQL server (Tests/support/postgres.sh) and set it"))
    func sharedClientBudget() async throws {
        let url = try TestPostgres.freshDatabase("budget")
        let extra = ["SEEK_DATABASE_URL": url, "SEEK_CLIENT_RATE_LIMIT": "2/min,burst=2"]
        let first = try await PublicServer.start(extra)
        let second = try await PublicServer.start(extra)
        // As `seek serve` does before it listens: the schema is ready before the first request.
        await first.harness.session.prepareStores(longLived: false)
        await second.harness.session.prepareStores(longLived: false)
        var statuses: [HTTPResponse.Status] = []
        for instance in [first, second, first] {
            statuses.append(try await instance.withRouter { client in
                try await client.execute(uri: "/api/v1/search?q=harbor&providers=openlibrary", method: .get) { $0.status }
            })
        }
        try await first.stop()
        try await second.stop()
        #expect(statuses == [.ok, .ok, .tooManyRequests])
    }
}
