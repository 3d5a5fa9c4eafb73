// swift-tools-version: 6.1
import PackageDescription

// Seek's fuzz targets: a package of its own, so the main build and CI's `swift build` never compile
// them. Each executable is a libFuzzer target (`LLVMFuzzerTestOneInput`); they only link as such when
// built with the fuzzer sanitizer, so build them with `bash run.sh` (see ../BENCHMARKS.md, "Fuzzing"):
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
//       --scratch-path .build-fuzz

/// One executable target per fuzz target, sources in Sources/<Name>/, with the Seek products it calls.
let targets: [(name: String, seekProducts: [String])] = [
    ("FuzzJSON", ["SeekKit"]),
    ("FuzzOpenLibrary", ["SeekKit", "SeekProviders"]),
    ("FuzzGiphy", ["SeekKit", "SeekProviders"]),
    ("FuzzAladin", ["SeekKit", "SeekProviders"]),
    ("FuzzGoogleBooks", ["SeekKit", "SeekProviders"]),
    ("FuzzCrossref", ["SeekKit", "SeekProviders"]),
    ("FuzzDeclared", ["SeekKit", "SeekProviders"]),
    ("FuzzCursor", []),
    ("FuzzRetryAfter", ["SeekKit"]),
    ("FuzzISBN", ["SeekKit"]),
    ("FuzzVisitorCookie", ["SeekAccess", "SeekKit"]),
    ("FuzzForwardedFor", ["SeekAccess"]),
]

let settings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "SeekFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Seek", path: ".."),
    ],
    targets: [
        // libFuzzer's driver entry point, declared for Swift.
        .target(name: "CLibFuzzer"),
        // What every target shares: the in-memory transport, waiting for async work, input helpers.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "SeekCore", package: "Seek"),
                .product(name: "SeekKit", package: "Seek"),
            ],
            swiftSettings: settings
        ),
    ] + targets.map { target in
        .executableTarget(
            name: target.name,
            dependencies: ["FuzzSupport", .product(name: "SeekCore", package: "Seek")]
                + target.seekProducts.map { .product(name: $0, package: "Seek") },
            swiftSettings: settings
        )
    },
    swiftLanguageModes: [.v6]
)
