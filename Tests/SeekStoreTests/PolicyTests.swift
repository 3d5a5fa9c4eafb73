import Foundation
import SeekKit
import SeekCore
import SeekLoopback
import SeekStore
import Testing

@Suite("Cache and history settings")
struct PolicyTests {
    @Test("defaults: 10 minutes for search, 1 day for detail, 7 days stale, history 10")
    func defaults() throws {
        let policy = try CachePolicy(settings: Settings())
        #expect(policy == CachePolicy(searchTTL: 600, detailTTL: 86_400, maxStaleAge: 7 * 86_400, bypassReads: false))
        #expect(try StoreSettings.historyLimit(Settings()) == 10)
    }

    @Test("the environment overrides the config file")
    func environmentWins() throws {
        let file = JSONValue.object([
            "cache": .object(["searchTTL": .number(30), "detailTTL": .number(60), "maxStaleDays": .number(2)]),
            "history": .object(["limit": .number(5)]),
        ])
        let fromFile = try CachePolicy(settings: Settings(file: file))
        #expect(fromFile == CachePolicy(searchTTL: 30, detailTTL: 60, maxStaleAge: 2 * 86_400))
        #expect(try StoreSettings.historyLimit(Settings(file: file)) == 5)

        let environment = ["SEEK_SEARCH_CACHE_TTL": "0", "SEEK_DETAIL_CACHE_TTL": "5", "SEEK_NO_CACHE": "1",
                           "SEEK_HISTORY_LIMIT": "3"]
        let fromEnvironment = try CachePolicy(settings: Settings(environment: environment, file: file))
        #expect(fromEnvironment == CachePolicy(searchTTL: 0, detailTTL: 5, maxStaleAge: 2 * 86_400, bypassReads: true))
        #expect(try StoreSettings.historyLimit(Settings(environment: environment, file: file)) == 3)
    }

    @Test("a TTL that is not a number of seconds ≥ 0 is a configuration error naming the variable",
          arguments: ["-1", "ten", "nan"])
    func invalidTTL(value: String) {
        #expect {
            _ = try CachePolicy(settings: Settings(environment: ["SEEK_SEARCH_CACHE_TTL": value]))
        } throws: { error in
            (error as? SeekError)?.kind == .configuration && "\(error)".contains("SEEK_SEARCH_CACHE_TTL")
        }
    }

    @Test("a history limit that is not a whole number from 0 to 10000 is a configuration error",
          arguments: ["-1", "2.5", "x", "100000"])
    func invalidHistoryLimit(value: String) {
        #expect(throws: SeekError.self) {
            _ = try StoreSettings.historyLimit(Settings(environment: ["SEEK_HISTORY_LIMIT": value]))
        }
    }
}
