// swift-tools-version: 6.1
import PackageDescription

// Seek's benchmarks: a package of its own, so the main build and CI never compile ordo-one/benchmark.
// Run from this folder: `swift package --allow-writing-to-package-directory benchmark` (see ../BENCHMARKS.md).

/// One executable target per suite, sources in Benchmarks/<Name>/; add a suite by adding its name and Seek products.
let suites: [(name: String, seekProducts: [String])] = [
    ("MergeBenchmarks", ["SeekCore"]),
    ("ImageCacheBenchmarks", ["SeekCore", "SeekImageCache", "SeekKit"]),
]

let package = Package(
    name: "SeekBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Seek", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: suites.map { suite in
        .executableTarget(
            name: suite.name,
            dependencies: [.product(name: "Benchmark", package: "benchmark")]
                + suite.seekProducts.map { .product(name: $0, package: "Seek") },
            path: "Benchmarks/\(suite.name)",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    },
    swiftLanguageModes: [.v6]
)
