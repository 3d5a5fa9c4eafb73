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
    // What an embedder uses; every other target is internal to the package (its seams `package` where no
    // product's API needs them).
    products: [
        // The provider contract and the engine, with its default merger (the identity rules).
        .library(name: "SeekCore", targets: ["SeekCore", "SeekIdentity"]),
        // What a provider is written with: the transport role, the provider client, settings, JSON, ISBNs.
        .library(name: "SeekKit", targets: ["SeekKit"]),
        // The provider conformance kit, with the loopback fixture server and a real transport to test against.
        .library(name: "SeekTesting", targets: ["SeekTesting", "SeekLoopback", "SeekHTTPClient"]),
        // The built-in providers.
        .library(name: "SeekProviders", targets: [
            "OpenLibraryProvider", "GiphyProvider", "AladinProvider", "DeclaredProvider", "GoogleBooksProvider", "CrossrefProvider",
        ]),
        // Embedding: open a session (providers, caches, stores and breakers built by the composition root),
        // with the modules whose types its API names (the stores, the resilience services, the shared database).
        .library(name: "SeekRuntime", targets: ["SeekRuntime", "SeekStore", "SeekResilience", "SeekPostgres"]),
        // `seek` with extra providers added: SeekHostsMain with serve and mcp in-process (as Examples/ITBookstore's
        // seek-itbook does), or SeekCLI's SeekMain for a command line alone.
        .library(name: "SeekHosts", targets: ["SeekHosts", "SeekCLI"]),
        // The shared image cache on its own (Benchmarks/ measures it alone).
        .library(name: "SeekImageCache", targets: ["SeekImageCache"]),
        // Visitor cookies and client addresses for a public instance, for an embedder's own server (Fuzz/ links it alone).
        .library(name: "SeekAccess", targets: ["SeekAccess"]),
        .executable(name: "seek", targets: ["seek"]),
        .executable(name: "seek-hosts", targets: ["seek-hosts"]),
        .executable(name: "seek-itbook", targets: ["seek-itbook"]),
        // Compiles a target's files that are not Swift into it (`EmbeddedFiles`), for a provider outside this
        // package as for ours (docs/writing-a-provider.md; Examples/outside-provider.sh builds one by version).
        .plugin(name: "EmbedFiles", targets: ["EmbedFiles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
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
        // Internal utilities under the engine and the kit: the LRU list, the deadline timers' thread, byte
        // scans, file-descriptor and address primitives. The one module with `Unsafe` pointer code, each
        // use with a SAFETY note; depends on nothing of ours and is in no product.
        .target(name: "SeekSupport", dependencies: [nioLocks], swiftSettings: strictSettings),
        // The contract and the engine: provider protocol, models, ids, errors, statuses, call options
        // and middleware, container, fan-out (with the merging role), ranking methods, cursor, ISBN. Depends on SeekSupport only.
        .target(name: "SeekCore", dependencies: ["SeekSupport", nioLocks], swiftSettings: strictSettings),
        // The engine's default merger (`ResultMerger`, the `ResultMerging` role): which records are one
        // book (typed identifiers, guarded title keys read by bytes), the merge's rows, ranks and field
        // policy, the memo of recent merges, owned rows. Depends on SeekCore and SeekSupport only.
        .target(name: "SeekIdentity", dependencies: ["SeekCore", "SeekSupport", nioLocks], swiftSettings: strictSettings),
        // The provider kit: the HTTP transport role and its messages, the client providers call their
        // APIs with (redaction, sanitising, untrusted text), settings (environment over the config file)
        // and what providers are built from, JSON in and out, ISBNs in catalogue text, locked state files.
        // A provider imports SeekCore and this, nothing else of ours.
        .target(name: "SeekKit", dependencies: ["SeekCore", "SeekSupport", nioLocks], swiftSettings: strictSettings),
        // The HTTP transport on AsyncHTTPClient: for the session that opens it and for tests, never a provider.
        .target(
            name: "SeekHTTPClient",
            dependencies: [
                "SeekCore", "SeekKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),  // gzip bodies (Crossref)
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Circuit breakers, rate limits, retries and per-provider stats, shared by every process.
        .target(
            name: "SeekResilience",
            dependencies: ["SeekCore", "SeekKit", "SeekSupport", nioLocks, .product(name: "Metrics", package: "swift-metrics")],
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
            dependencies: ["SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekImageCache",
            dependencies: ["SeekCore", "SeekKit", "SeekSupport", nioLocks, .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekStore",
            dependencies: [
                "SeekCore", "SeekKit", "SeekSupport", nioLocks, .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]  // SQL/: the user-state database's migrations, one file each
        ),
        // The shared stores on PostgreSQL (SEEK_DATABASE_URL): favourites, history, the response cache,
        // cursor tokens, breakers and rate-limit buckets for several instances, with a local fallback.
        .target(
            name: "SeekPostgres",
            dependencies: [
                "SeekCore", "SeekStore", "SeekResilience", nioLocks,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]  // SQL/: the migrations and the breaker's and bucket's functions
        ),
        .target(
            name: "OpenLibraryProvider",
            dependencies: ["SeekCore", "SeekKit"],
            path: "Providers/OpenLibrary",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        .target(
            name: "GiphyProvider",
            dependencies: ["SeekCore", "SeekKit"],
            path: "Providers/Giphy",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        .target(
            name: "AladinProvider",
            dependencies: ["SeekCore", "SeekKit"],
            path: "Providers/Aladin",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        .target(
            name: "GoogleBooksProvider",
            dependencies: ["SeekCore", "SeekKit"],
            path: "Providers/GoogleBooks",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        .target(
            name: "CrossrefProvider",
            dependencies: ["SeekCore", "SeekKit"],
            path: "Providers/Crossref",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        // "Your library": the reader's Calibre library (metadata.db read-only, its own FTS5 index in the cache).
        .target(
            name: "CalibreProvider",
            dependencies: ["SeekCore", "SeekKit", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Providers/Calibre",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]  // SQL/index.sql: the schema of Seek's own index of the library
        ),
        // Providers declared in the config file ("jsonProviders"): URL templates and JSON paths.
        .target(
            name: "DeclaredProvider",
            dependencies: ["SeekCore", "SeekKit"],
            path: "Providers/Declared",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]  // Bundled/: the declarations Seek ships (Kakao, Naver, Gutendex) and their demos
        ),
        // The session every host opens: the composition root (the only place that lists providers),
        // the shared HTTP client, caches, breakers, stats and the database; demo mode.
        .target(
            name: "SeekRuntime",
            dependencies: [
                "SeekCore", "SeekIdentity", "SeekKit", "SeekHTTPClient", "SeekResilience", "SeekLoopback", "SeekImageCache", "SeekStore",
                "SeekPostgres", "OpenLibraryProvider", "GiphyProvider", "AladinProvider", "DeclaredProvider",
                "GoogleBooksProvider", "CrossrefProvider", "CalibreProvider", "CMallocArenas", nioLocks,
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        // glibc's mallopt(M_ARENA_MAX), which Swift's Glibc module does not declare (AllocatorArenas).
        .target(name: "CMallocArenas"),
        // Who a request comes from and what it may do, for a public instance: signed visitor cookies,
        // client addresses behind trusted proxies, same-origin writes. Small, so Fuzz/ links it alone.
        .target(
            name: "SeekAccess",
            dependencies: ["SeekCore", "SeekSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        // The HTTP host: `seek serve`, a JSON API and the web UI (Web/, swift-mustache) over one long-lived session (Hummingbird).
        .target(
            name: "SeekWeb",
            dependencies: [
                "SeekCore", "SeekKit", "SeekRuntime", "SeekStore", "SeekImageCache", "SeekMCP", "SeekAccess", "SeekResilience",
                "SeekSupport", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                nioLocks,
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
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
                "SeekCore", "SeekKit", "SeekRuntime", "SeekStore",
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
                "SeekCore", "SeekKit", "SeekRuntime", "SeekImageCache", "SeekStore", "SeekResilience", "SeekSupport", nioLocks,
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
                "SeekCore", "SeekKit", "SeekCLI", "SeekWeb", "SeekMCP", "SeekRuntime",
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
            dependencies: ["SeekCore", "SeekKit"],
            path: "Examples/ITBookstore/Sources/ITBookstoreProvider",
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        .executableTarget(
            name: "seek-itbook",
            dependencies: ["SeekHosts", "ITBookstoreProvider"],
            path: "Examples/ITBookstore/Sources/seek-itbook",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekCoreTests", dependencies: ["SeekCore", "SeekIdentity", "SeekKit", "SeekSupport", "SeekHTTPClient", "SeekLoopback", "SeekTesting", nioLocks],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "SeekSupportTests", dependencies: ["SeekSupport", nioLocks], swiftSettings: strictSettings),
        // The kit's tests, by the part of it they test: catalogue ISBNs, JSON, HTTP (with the AsyncHTTPClient transport).
        .testTarget(name: "SeekCatalogTests", dependencies: ["SeekIdentity", "SeekKit", "SeekCore"], swiftSettings: strictSettings),
        .testTarget(name: "SeekJSONTests", dependencies: ["SeekKit", "SeekCore"], swiftSettings: strictSettings),
        .testTarget(
            name: "SeekHTTPTests",
            dependencies: [
                "SeekKit", "SeekHTTPClient", "SeekCore", "SeekLoopback", "SeekTesting", "SeekSupport", nioLocks,
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekResilienceTests",
            dependencies: [
                "SeekResilience", "SeekKit", "SeekHTTPClient", "SeekCore", "SeekLoopback", "SeekTesting", nioLocks,
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "SeekTestingTests",
            dependencies: [
                "SeekTesting", "SeekKit", "SeekLoopback",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OpenLibraryProviderTests",
            dependencies: ["OpenLibraryProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GiphyProviderTests", dependencies: ["GiphyProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AladinProviderTests", dependencies: ["AladinProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GoogleBooksProviderTests",
            dependencies: ["GoogleBooksProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting", "SeekRuntime", "SeekCLI"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CalibreProviderTests",
            dependencies: [
                "CalibreProvider", "SeekIdentity", "SeekCore", "SeekKit", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CrossrefProviderTests",
            dependencies: ["CrossrefProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting", "SeekRuntime", "SeekCLI"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "DeclaredProviderTests", dependencies: ["DeclaredProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekImageCacheTests",
            dependencies: ["SeekImageCache", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting", nioLocks],
            swiftSettings: strictSettings
        ),
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
                "SeekStore", "SeekCore", "SeekIdentity", "SeekKit", "SeekLoopback", "SeekTesting", "SeekSupport", nioLocks, .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ITBookstoreProviderTests",
            dependencies: ["ITBookstoreProvider", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekTesting"],
            path: "Examples/ITBookstore/Tests/ITBookstoreProviderTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekWebTests",
            dependencies: [
                "SeekWeb", "SeekRuntime", "SeekCore", "SeekKit", "SeekLoopback", "SeekStore", "SeekTesting", nioLocks,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // ITBookstoreProvider: the CLI tests run `seek` with the example added, as seek-itbook does.
        .testTarget(
            name: "SeekCLITests",
            dependencies: [
                "SeekCLI", "SeekRuntime", "SeekCore", "SeekKit", "SeekHTTPClient", "SeekLoopback", "SeekResilience", "SeekStore",
                "SeekTesting", "ITBookstoreProvider", "AladinProvider", nioLocks,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SeekMCPTests",
            dependencies: [
                "SeekMCP", "SeekRuntime", "SeekCore", "SeekKit", "SeekTesting", "SeekLoopback", .product(name: "MCP", package: "swift-sdk"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
