import Foundation
import SeekKit
import SeekCore
import SeekStore
import Testing

@Suite("Cache and history settings: extreme values")
struct PolicyBoundsTests {
    @Test("a cache TTL past ten years, infinite or NaN is a configuration error naming the variable and the bound",
          arguments: ["SEEK_SEARCH_CACHE_TTL", "SEEK_DETAIL_CACHE_TTL"],
          ["1e300", "inf", "-inf", "nan", "315360001", "9223372036854775808", "-1e-300"])
    func extremeTTL(variable: String, value: String) {
        #expect {
            _ = try CachePolicy(settings: Settings(environment: [variable: value]))
        } throws: { error in
            let text = "\(error)"
            return (error as? SeekError)?.kind == .configuration && text.contains(variable) && text.contains("315360000")
        }
    }

    @Test("a cache TTL of -0 is 0 (the cache off), and ten years is accepted")
    func edgeTTL() throws {
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_SEARCH_CACHE_TTL": "-0"])).searchTTL == 0)
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_DETAIL_CACHE_TTL": "315360000"])).detailTTL == 315_360_000)
    }

    @Test("an empty variable is no setting: the default holds")
    func emptyTTL() throws {
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_SEARCH_CACHE_TTL": ""])).searchTTL == CachePolicy.defaultSearchTTL)
    }

    @Test("a config-file TTL of 1e300 is a configuration error too")
    func extremeTTLInFile() {
        let file = JSONValue.object(["cache": .object(["detailTTL": .number(1e300)])])
        #expect(throws: SeekError.self) { _ = try CachePolicy(settings: Settings(file: file)) }
    }

    @Test("SEEK_CACHE_MAX_STALE_DAYS past 3650, infinite or NaN is a configuration error", arguments: ["1e300", "inf", "nan", "3651", "-1"])
    func extremeStaleDays(value: String) {
        #expect {
            _ = try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_MAX_STALE_DAYS": value]))
        } throws: { error in
            "\(error)".contains("SEEK_CACHE_MAX_STALE_DAYS") && "\(error)".contains("days")
        }
    }

    @Test("SEEK_CACHE_MAX_STALE_DAYS of 3650 is ten years in seconds")
    func longestStaleAge() throws {
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_MAX_STALE_DAYS": "3650"])).maxStaleAge == 3650 * 86_400)
    }

    @Test("SEEK_CACHE_MEMORY_MB past a terabyte, negative, infinite or NaN is a configuration error naming the variable",
          arguments: ["1e300", "inf", "-inf", "nan", "-1", "1048577", "x"])
    func extremeMemoryLimit(value: String) {
        #expect {
            _ = try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_MEMORY_MB": value]))
        } throws: { error in
            "\(error)".contains("SEEK_CACHE_MEMORY_MB") && "\(error)".contains("megabytes") && !"\(error)".contains("ten years")
        }
    }

    @Test("SEEK_CACHE_DISK_MB of 0, past a terabyte, negative, infinite or NaN is a configuration error naming the variable",
          arguments: ["0", "-0", "1e300", "inf", "-inf", "nan", "-1", "1048577", "x"])
    func extremeDiskLimit(value: String) {
        #expect {
            _ = try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_DISK_MB": value]))
        } throws: { error in
            "\(error)".contains("SEEK_CACHE_DISK_MB") && "\(error)".contains("above 0") && !"\(error)".contains("ten years")
        }
    }

    @Test("SEEK_CACHE_DISK_MB is megabytes over the config file's cache.diskLimitMB; unset is 256 MB")
    func diskLimit() throws {
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_DISK_MB": "0.5"])).diskLimitBytes == 524_288)
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_DISK_MB": "1048576"])).diskLimitBytes == 1_099_511_627_776)
        let file = JSONValue.object(["cache": .object(["diskLimitMB": .number(3)])])
        #expect(try CachePolicy(settings: Settings(file: file)).diskLimitBytes == 3 * 1_048_576)
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_DISK_MB": "1"], file: file)).diskLimitBytes == 1_048_576)
        #expect(try CachePolicy(settings: Settings()).diskLimitBytes == 256 * 1_048_576)
        #expect(throws: SeekError.self) {
            _ = try CachePolicy(settings: Settings(file: .object(["cache": .object(["diskLimitMB": .string("lots")])])))
        }
    }

    @Test("SEEK_CACHE_MEMORY_MB is megabytes over the config file's cache.memoryLimitMB; 0 keeps none; unset is 8 MB")
    func memoryLimit() throws {
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_MEMORY_MB": "2.5"])).memoryLimitBytes == 2_621_440)
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_MEMORY_MB": "0"])).memoryLimitBytes == 0)
        let file = JSONValue.object(["cache": .object(["memoryLimitMB": .number(3)])])
        #expect(try CachePolicy(settings: Settings(file: file)).memoryLimitBytes == 3 * 1_048_576)
        #expect(try CachePolicy(settings: Settings(environment: ["SEEK_CACHE_MEMORY_MB": "1"], file: file)).memoryLimitBytes == 1_048_576)
        #expect(try CachePolicy(settings: Settings()).memoryLimitBytes == 8 * 1_048_576)
    }

    @Test("SEEK_HISTORY_LIMIT of 2^63, 1e300, infinity or NaN is a configuration error",
          arguments: ["9223372036854775808", "9223372036854775807", "1e300", "inf", "nan", "-1e300"])
    func extremeHistoryLimit(value: String) {
        #expect {
            _ = try StoreSettings.historyLimit(Settings(environment: ["SEEK_HISTORY_LIMIT": value]))
        } throws: { error in
            "\(error)".contains("SEEK_HISTORY_LIMIT") && "\(error)".contains("10000")
        }
    }

    @Test("SEEK_HISTORY_LIMIT of -0 keeps no history, like 0")
    func negativeZeroHistoryLimit() throws {
        #expect(try StoreSettings.historyLimit(Settings(environment: ["SEEK_HISTORY_LIMIT": "-0"])) == 0)
    }
}
