// swift-tools-version:6.1
import PackageDescription

/// Upcoming features every target of ours builds with.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let nioLocks = Target.Dependency.product(name: "NIOConcurrencyHelpers", package: "swift-nio")

let package = Package(
    name: "Seek",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SeekCore", targets: ["SeekCore"]),
        .library(name: "SeekJSON", targets: ["SeekJSON"]),
        .library(name: "SeekCatalog", targets: ["SeekCatalog"]),
        .library(name: "SeekHTTP", targets: ["SeekHTTP"]),
        .library(name: "SeekConfig", targets: ["SeekConfig"]),
        .library(name: "SeekResilience", targets: ["SeekResilience"]),
        .library(name: "SeekLoopback", targets: ["SeekLoopback"]),
        .library(name: "SeekTesting", targets: ["SeekTesting"]),
        .library(name: "SeekSession", targets: ["SeekSession"]),
        .library(name: "SeekServer", targets: ["SeekServer"]),
        .library(name: "SeekAccess", targets: ["SeekAccess"]),
        .library(name: "SeekCLI", targets: ["SeekCLI"]),
        .library(name: "SeekMCP", targets: ["SeekMCP"]),
        .library(name: "SeekHosts", targets: ["SeekHosts"]),
        .library(name: "OpenLibraryProvider", targets: ["OpenLibraryProvider"]),
        .library(name: "GiphyProvider", targets: ["GiphyProvider"]),
        .library(name: "AladinProvider", targets: ["AladinProvider"]),
        .library(name: "DeclaredProvider", targets: ["DeclaredProvider"]),
        .library(name: "SeekImageCache", targets: ["SeekImageCache"]),
        .library(name: "SeekStore", targets: ["SeekStore"]),
        .library(name: "ITBookstoreProvider", targets: ["ITBookstoreProvider"]),
        .executable(name: "seek", targets: ["seek"]),
        .executable(name: "seek-hosts", targets: ["seek-hosts"]),
        .executable(name: "seek-itbook", targets: ["seek-itbook"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // Files that are not Swift (web assets, templates, the OpenAPI document, demo recordings) are
        // compiled into their target by EmbedFiles, so a copied binary carries them; BuildID gives seek
        // and seek-hosts one id per source tree, which seek checks before it hands its process over.
        // Both run seek-embed at build time (README, "Files that are not Swift").
        .executableTarget(name: "seek-embed", swiftSettings: strictSettings),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["seek-embed"]),
        .plugin(name: "BuildID", capability: .buildTool(), dependencies: ["seek-embed"]),
        // The contract and the engine: provider protocol, models, ids, errors, statuses, call options
        // and middleware, container, fan-out, merge, rank, cursor, ISBN. Depends on nothing of ours.
        .target(name: "SeekCore", dependencies: [nioLocks], swiftSettings: strictSettings),
        // Reading ISBNs out of catalogue text (labels, qualifiers, several per field, any script's digits), for providers.
        .target(name: "SeekCatalog", dependencies: ["SeekCore"], swiftSettings: strictSettings),
        // Untyped JSON in one pass, JSON text out in written order, dot paths.
        .target(name: "SeekJSON", dependencies: ["SeekCore"], swiftSettings: strictSettings),
        // The HTTP transport on AsyncHTTPClient, and the client providers call their APIs with.
        .target(
            name: "SeekHTTP",
            dependencies: [
                "SeekCore", "SeekJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Settings (environment over the config file) and what providers are built from.
        .target(name: "SeekConfig", dependencies: ["SeekCore", "SeekJSON", "SeekHTTP"], swiftSettings: strictSettings),
        // Circuit breakers, rate limits, retries and per-provider stats, shared by every process.
        .target(
            name: "SeekResilience",
            dependencies: ["SeekCore", "SeekJSON", "SeekHTTP", "SeekConfig", nioLocks, .product(name: "Metrics", package: "swift-metrics")],
            swiftSettings: strictSettings
        ),
        // A loopback HTTP server that replays recorded answers: demo mode and the tests.
        .target(
            name: "SeekLoopback",
            dependencies: [
                "SeekCore", nioLocks,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Test support: the shared fixtures and the provider conformance kit.
        .target(
            name: "SeekTesting",
            dependencies: ["SeekCore", "SeekJSON", "SeekHTTP", "SeekConfig", "SeekLoopback", nioLocks],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekImageCache",
            dependencies: ["SeekCore", "SeekHTTP", "SeekConfig", "SeekResilience", nioLocks, .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekStore",
            dependencies: [
                "SeekCore", "SeekJSON", "SeekConfig", nioLocks, .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // The shared stores on PostgreSQL (SEEK_DATABASE_URL): favourites, history, the response cache,
        // cursor tokens, breakers and rate-limit buckets for several instances, with a local fallback.
        .target(
            name: "SeekPostgres",
            dependencies: [
                "SeekCore", "SeekJSON", "SeekStore", "SeekResilience", nioLocks,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "OpenLibraryProvider",
            dependencies: ["SeekCore", "SeekCatalog", "SeekJSON", "SeekHTTP", "SeekConfig"],
            path: "Providers/OpenLibrary",
            swiftSettings: strictSettings
        ),
        .target(
            name: "GiphyProvider",
            dependencies: ["SeekCore", "SeekJSON", "SeekHTTP", "SeekConfig"],
            path: "Providers/Giphy",
            swiftSettings: strictSettings
        ),
        .target(
            name: "AladinProvider",
            dependencies: ["SeekCore", "SeekCatalog", "SeekJSON", "SeekHTTP", "SeekConfig"],
            path: "Providers/Aladin",
            swiftSettings: strictSettings
        ),
        // Providers declared in the config file ("jsonProviders"): URL templates and JSON paths.
        .target(
            name: "DeclaredProvider",
            dependencies: ["SeekCore", "SeekCatalog", "SeekJSON", "SeekHTTP", "SeekConfig"],
            path: "Providers/Declared",
            swiftSettings: strictSettings
        ),
        // The session every host opens: the composition root (the only place that lists providers),
        // the shared HTTP client, caches, breakers, stats and the database; demo mode.
        .target(
            name: "SeekSession",
            dependencies: [
                "SeekCore", "SeekJSON", "SeekHTTP", "SeekConfig", "SeekResilience", "SeekLoopback", "SeekImageCache", "SeekStore",
                "SeekPostgres", "OpenLibraryProvider", "GiphyProvider", "AladinProvider", "DeclaredProvider", nioLocks,
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        // Who a request comes from and what it may do, for a public instance: signed visitor cookies,
        // client addresses behind trusted proxies, same-origin writes. Small, so Fuzz/ links it alone.
        .target(
            name: "SeekAccess",
            dependencies: ["SeekCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        // The HTTP host: `seek serve`, a JSON API and the web UI (Web/, swift-mustache) over one long-lived session (Hummingbird).
        .target(
            name: "SeekServer",
            dependencies: [
                "SeekCore", "SeekJSON", "SeekConfig", "SeekSession", "SeekStore", "SeekImageCache", "SeekMCP", "SeekAccess",
                "SeekResilience", nioLocks,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        // The MCP host: `seek mcp`'s tools, resources and text summaries on the MCP SDK.
        .target(
            name: "SeekMCP",
            dependencies: [
                "SeekCore", "SeekJSON", "SeekSession", "SeekStore",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
                // openapi.yaml's document schemas, parsed when the tools are listed (OutputSchemas.swift).
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        // The command-line host. `serve` and `mcp` replace the process with `seek-hosts`, so the short
        // commands start without the web server and the MCP SDK loaded.
        .target(
            name: "SeekCLI",
            dependencies: [
                "SeekCore", "SeekJSON", "SeekHTTP", "SeekConfig", "SeekResilience", "SeekSession", "SeekImageCache", "SeekStore",
                "GiphyProvider", nioLocks,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings,
            plugins: ["BuildID"]
        ),
        .executableTarget(name: "seek", dependencies: ["SeekCLI"], swiftSettings: strictSettings),
        // The long-lived hosts as commands: `seek` with `serve` and `mcp` running in-process.
        .target(
            name: "SeekHosts",
            dependencies: [
                "SeekCLI", "SeekConfig", "SeekServer", "SeekMCP", "SeekSession",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings,
            plugins: ["BuildID"]
        ),
        .executableTarget(name: "seek-hosts", dependencies: ["SeekHosts"], swiftSettings: strictSettings),
        // A fourth provider as a user would write it, and `seek` with it added (Examples/ITBookstore).
        .target(
            name: "ITBookstoreProvider",
            dependencies: ["SeekCore", "SeekCatalog", "SeekJSON", "SeekHTTP", "SeekConfig"],
            path: "Examples/ITBookstore/Sources/ITBookstoreProvider",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "seek-itbook",
            dependencies: ["SeekHosts", "ITBookstoreProvider"],
            path: "Examples/ITBookstore/Sources/seek-itbook",
            swiftSettings: strictSettings
        ),
        .testTarget(name: "SeekCoreTests", dependencies: ["SeekCore", "SeekTesting", nioLocks], swiftSettings: strictSettings),
        .testTarget(name: "SeekCatalogTests", dependencies: ["SeekCatalog", "SeekCore"], swiftSettings: strictSettings),
        .testTarget(name: "SeekJSONTests", dependencies: ["SeekJSON", "SeekHTTP"], swiftSettings: strictSettings),
        .testTarget(name: "SeekHTTPTests", dependencies: ["SeekHTTP", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(
            name: "SeekResilienceTests",
            dependencies: ["SeekResilience", "SeekTesting", nioLocks, .product(name: "MetricsTestKit", package: "swift-metrics")],
            swiftSettings: strictSettings),
        .testTarget(name: "SeekTestingTests", dependencies: ["SeekTesting"], swiftSettings: strictSettings),
        .testTarget(
            name: "OpenLibraryProviderTests",
            dependencies: ["OpenLibraryProvider", "SeekTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "GiphyProviderTests", dependencies: ["GiphyProvider", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "AladinProviderTests", dependencies: ["AladinProvider", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "DeclaredProviderTests", dependencies: ["DeclaredProvider", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "SeekImageCacheTests", dependencies: ["SeekImageCache", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "SeekAccessTests", dependencies: ["SeekAccess", "SeekCore"], swiftSettings: strictSettings),
        .testTarget(
            name: "SeekPostgresTests",
            dependencies: [
                "SeekPostgres", "SeekStore", "SeekResilience", "SeekCore", "SeekTesting", nioLocks,
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekStoreTests",
            dependencies: [
                "SeekStore", "SeekTesting", nioLocks, .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ITBookstoreProviderTests",
            dependencies: ["ITBookstoreProvider", "SeekTesting"],
            path: "Examples/ITBookstore/Tests/ITBookstoreProviderTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekServerTests",
            dependencies: [
                "SeekServer", "SeekSession", "SeekTesting", nioLocks,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // ITBookstoreProvider: the CLI tests run `seek` with the example added, as seek-itbook does.
        .testTarget(
            name: "SeekCLITests", dependencies: ["SeekCLI", "SeekSession", "SeekTesting", "ITBookstoreProvider", nioLocks],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekMCPTests",
            dependencies: ["SeekMCP", "SeekSession", "SeekTesting", "SeekLoopback", .product(name: "MCP", package: "swift-sdk")],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
