// swift-tools-version: 6.1
import PackageDescription

// The floor under issue 30's miss figures: the least a server built on Seek's own HTTP libraries
// (Hummingbird in, AsyncHTTPClient out) can do per miss. See ../../BENCHMARKS.md and floor.sh.
let package = Package(
    name: "FanoutFloor",
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "fanout-floor",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
