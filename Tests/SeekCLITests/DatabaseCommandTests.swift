import Foundation
import SeekCLI
import SeekTesting
import Testing

@Suite("seek db import-sqlite")
struct DatabaseCommandTests {
    @Test("without SEEK_DATABASE_URL it is a configuration error (64) that names the variable")
    func needsADatabase() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["db", "import-sqlite"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_DATABASE_URL"), "stderr: \(result.stderr)")
    }

    @Test("a SEEK_DATABASE_URL that is not a postgres:// URL is a configuration error (64) for every command")
    func badURL() async throws {
        let harness = try await CLIHarness.start()
        let result = await harness.run(["favorites", "list"], environment: ["SEEK_DATABASE_URL": "mysql://root@localhost/seek"])
        try await harness.stop()
        #expect(result.code == 64)
        #expect(result.stderr.contains("SEEK_DATABASE_URL"), "stderr: \(result.stderr)")
    }

    @Test("with the database down a favourite is refused (exit 1, naming the cause) and a search still answers")
    func databaseDown() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let down = ["SEEK_DATABASE_URL": "postgres://postgres:pw@127.0.0.1:1/seek?sslmode=disable"]
        let added = await harness.run(["favorites", "add", "openlibrary:OL45804W"], environment: down)
        let searched = await harness.run(["search", "fox", "--providers", "openlibrary", "--format", "json"], environment: down)
        try await harness.stop()
        #expect(added.code == 1)
        #expect(added.stderr.contains("unreachable"), "stderr: \(added.stderr)")
        #expect(!added.stderr.contains(":pw@"))
        #expect(searched.code == 0, "stderr: \(searched.stderr)")
        #expect((searched.json?["items"] as? [Any])?.isEmpty == false)
    }

    @Test("favourites and history copy from the embedded database once, however often it runs",
          .enabled(if: TestPostgres.url != nil, "SEEK_TEST_DATABASE_URL is not set: start a PostgreSQL server (Tests/support/postgres.sh) and set it"))
    func importsOnce() async throws {
        let harness = try await CLIHarness.start()
        harness.serveOpenLibrary()
        let added = await harness.run(["favorites", "add", "openlibrary:OL45804W"])
        let searched = await harness.run(["search", "fox", "--providers", "openlibrary"])
        #expect(added.code == 0 && searched.code == 0, "stderr: \(added.stderr) \(searched.stderr)")
        let shared = ["SEEK_DATABASE_URL": try TestPostgres.freshDatabase("import")]
        let first = await harness.run(["db", "import-sqlite"], environment: shared)
        let second = await harness.run(["db", "import-sqlite"], environment: shared)
        let favorites = await harness.run(["favorites", "list", "--format", "json"], environment: shared)
        let history = await harness.run(["history", "--format", "json"], environment: shared)
        try await harness.stop()
        #expect(first.code == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("Imported 1 of 1 favourites and 1 of 1 searches"), "stdout: \(first.stdout)")
        #expect(second.stdout.contains("Imported 0 of 1 favourites and 0 of 1 searches"), "stdout: \(second.stdout)")
        let entries = try #require(favorites.json?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["id"] as? String } == ["openlibrary:OL45804W"])
        #expect((history.json?["entries"] as? [[String: Any]])?.map { $0["query"] as? String } == ["fox"])
    }
}
