// swift-tools-version:6.1
import PackageDescription

/// Upcoming features every target of ours builds with.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// How the executables are linked on Linux, for start-up time (BENCHMARKS.md, fan-out):
/// - Linking the Swift runtime in (`--static-swift-stdlib`) also exports every symbol of our own and
///   our dependencies' code (~37,000) from the executable; nothing looks them up, and every start
///   paid for them (the dynamic loader's symbol lookups, the runtime's `dladdr`): ~1.5 ms a run.
/// - A position-independent executable this size carries ~126,000 relocations, which the dynamic
///   loader applies at every start, copying ~380 pages of metadata and tables to write them: ~2 ms
///   a run. The release build, linked at a fixed address, has none. The trade: the executable's own
///   code and data are not at a random address (its libraries, heap and stacks still are). Release
///   only, and with the runtime linked in as README builds it: against the shared Swift runtime
///   (debug builds) the loader warns about protected symbols. Drop `-no-pie` to undo it.
let executableLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux])),
    .unsafeFlags(["-Xclang-linker", "-no-pie"], .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "Seek",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SeekCore", targets: ["SeekCore"]),
        .library(name: "SeekTesting", targets: ["SeekTesting"]),
        .library(name: "SeekCLI", targets: ["SeekCLI"]),
        .library(name: "OpenLibraryProvider", targets: ["OpenLibraryProvider"]),
        .library(name: "GiphyProvider", targets: ["GiphyProvider"]),
        .library(name: "AladinProvider", targets: ["AladinProvider"]),
        .library(name: "SeekImageCache", targets: ["SeekImageCache"]),
        .library(name: "SeekStore", targets: ["SeekStore"]),
        .library(name: "ITBookstoreProvider", targets: ["ITBookstoreProvider"]),
        .executable(name: "seek", targets: ["seek"]),
        .executable(name: "seek-itbook", targets: ["seek-itbook"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "SeekCore",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekTesting",
            dependencies: [
                "SeekCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekImageCache",
            dependencies: ["SeekCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekStore",
            dependencies: ["SeekCore", "CSeekSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        // A C wrapper for one variadic SQLite call (SeekStore's database setup).
        .target(name: "CSeekSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "OpenLibraryProvider",
            dependencies: ["SeekCore"],
            path: "Providers/OpenLibrary",
            swiftSettings: strictSettings
        ),
        .target(
            name: "GiphyProvider",
            dependencies: ["SeekCore"],
            path: "Providers/Giphy",
            swiftSettings: strictSettings
        ),
        .target(
            name: "AladinProvider",
            dependencies: ["SeekCore"],
            path: "Providers/Aladin",
            swiftSettings: strictSettings
        ),
        .target(
            name: "SeekCLI",
            dependencies: [
                "SeekCore",
                "SeekTesting",
                "OpenLibraryProvider",
                "GiphyProvider",
                "AladinProvider",
                "SeekImageCache",
                "SeekStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Resources/Demo")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "seek",
            dependencies: ["SeekCLI"],
            swiftSettings: strictSettings,
            linkerSettings: executableLinkerSettings
        ),
        // A fourth provider as a user would write it, and `seek` with it added (Examples/ITBookstore).
        .target(
            name: "ITBookstoreProvider",
            dependencies: ["SeekCore"],
            path: "Examples/ITBookstore/Sources/ITBookstoreProvider",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "seek-itbook",
            dependencies: ["SeekCLI", "ITBookstoreProvider"],
            path: "Examples/ITBookstore/Sources/seek-itbook",
            swiftSettings: strictSettings,
            linkerSettings: executableLinkerSettings
        ),
        .testTarget(name: "SeekCoreTests", dependencies: ["SeekCore", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "SeekTestingTests", dependencies: ["SeekTesting"], swiftSettings: strictSettings),
        .testTarget(
            name: "OpenLibraryProviderTests",
            dependencies: ["OpenLibraryProvider", "SeekTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "GiphyProviderTests", dependencies: ["GiphyProvider", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "AladinProviderTests", dependencies: ["AladinProvider", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(name: "SeekImageCacheTests", dependencies: ["SeekImageCache", "SeekTesting"], swiftSettings: strictSettings),
        .testTarget(
            name: "SeekStoreTests",
            dependencies: ["SeekStore", "SeekTesting", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ITBookstoreProviderTests",
            dependencies: ["ITBookstoreProvider", "SeekTesting"],
            path: "Examples/ITBookstore/Tests/ITBookstoreProviderTests",
            swiftSettings: strictSettings
        ),
        // ITBookstoreProvider: the CLI tests run `seek` with the example added, as seek-itbook does.
        .testTarget(
            name: "SeekCLITests", dependencies: ["SeekCLI", "SeekTesting", "ITBookstoreProvider"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
