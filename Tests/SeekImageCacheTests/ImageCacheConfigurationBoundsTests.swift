import Foundation
import SeekKit
import SeekCore
import SeekImageCache
import Testing

@Suite("Image cache settings: extreme values")
struct ImageCacheConfigurationBoundsTests {
    @Test("SEEK_IMAGE_CACHE_TTL past ten years, infinite, NaN, zero or negative is a configuration error naming it",
          arguments: ["1e300", "inf", "nan", "9223372036854775808", "315360001", "0", "-0", "-1"])
    func extremeTTL(value: String) {
        #expect {
            _ = try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_IMAGE_CACHE_TTL": value]))
        } throws: { error in
            (error as? SeekError)?.kind == .configuration && "\(error)".contains("SEEK_IMAGE_CACHE_TTL")
                && "\(error)".contains("315360000")
        }
    }

    @Test("SEEK_IMAGE_CACHE_TTL of ten years is accepted")
    func longestTTL() throws {
        let configuration = try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_IMAGE_CACHE_TTL": "315360000"]))
        #expect(configuration.timeToLive == ImageCacheConfiguration.maxTimeToLive)
    }

    @Test("imageCache.ttlDays past 3650 is a configuration error")
    func extremeTTLDays() {
        let file = JSONValue.object(["imageCache": .object(["ttlDays": .number(1e8)])])
        #expect {
            _ = try ImageCacheConfiguration(settings: Settings(file: file))
        } throws: { error in
            "\(error)".contains("imageCache.ttlDays") && "\(error)".contains("at most 3650")
        }
    }

    @Test("SEEK_IMAGE_CACHE_MEMORY_MB infinite, NaN, negative or past a petabyte is a configuration error naming it",
          arguments: ["1e300", "inf", "nan", "-1", "1000000001", "lots"])
    func extremeMemoryLimit(value: String) {
        #expect {
            _ = try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_IMAGE_CACHE_MEMORY_MB": value]))
        } throws: { error in
            (error as? SeekError)?.kind == .configuration && "\(error)".contains("SEEK_IMAGE_CACHE_MEMORY_MB")
        }
    }

    @Test("SEEK_IMAGE_CACHE_MEMORY_MB wins over imageCache.memoryLimitMB; 0 turns the memory tier off")
    func memoryLimitFromEnvironment() throws {
        let file = JSONValue.object(["imageCache": .object(["memoryLimitMB": .number(3)])])
        let fromFile = try ImageCacheConfiguration(settings: Settings(file: file))
        #expect(fromFile.memoryLimitBytes == 3 * 1_048_576)
        let fromEnvironment = try ImageCacheConfiguration(settings: Settings(environment: ["SEEK_IMAGE_CACHE_MEMORY_MB": "0"], file: file))
        #expect(fromEnvironment.memoryLimitBytes == 0)
    }

    @Test("limits of 1e300 MB are a configuration error, not an overflow")
    func extremeLimits() {
        for key in ["diskLimitMB", "memoryLimitMB"] {
            let file = JSONValue.object(["imageCache": .object([key: .number(1e300)])])
            #expect(throws: SeekError.self) { _ = try ImageCacheConfiguration(settings: Settings(file: file)) }
        }
    }
}
