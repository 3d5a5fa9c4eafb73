#!/usr/bin/env bash
# Builds the IT Bookstore example as a provider outside this repository is built: a package of its own in a
# temporary folder, depending on Seek BY VERSION (a tag in a bare clone of this repository's HEAD, resolved
# over file://, so no network is needed), with the EmbedFiles plugin product compiling its recordings in.
# Then runs its check once (Examples/outside-provider/main.swift: search, detail and new releases answered
# from those embedded recordings). It shares nothing with this package's .build, so it measures and prints
# its own time. Only committed work is built (the clone is of HEAD).
#
#   bash Examples/outside-provider.sh           # the provider and its check: SeekCore, SeekKit, the plugin
#   bash Examples/outside-provider.sh --tests   # also its tests on the SeekTesting product (AsyncHTTPClient: slower)
#
# SEEK_OUTSIDE_KEEP=1 keeps the temporary folder (printed) for a look afterwards.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
with_tests=0
case "${1:-}" in
  --tests) with_tests=1 ;;
  "") ;;
  *) echo "usage: $0 [--tests]" >&2; exit 64 ;;
esac
version=0.0.0-ci
work="$(mktemp -d "${TMPDIR:-/tmp}/seek-outside.XXXXXX")"
case "$work" in "$repo"/*) echo "outside provider: $work is inside the repository" >&2; exit 1 ;; esac
if [ "${SEEK_OUTSIDE_KEEP:-0}" = 1 ]; then
  echo "outside provider: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
start=$SECONDS

# Seek at a version: HEAD of this repository, tagged in a bare clone of its own (the repository is not touched).
git clone --quiet --bare --no-hardlinks "$repo" "$work/seek.git"
git -C "$work/seek.git" tag "$version" "$(git -C "$repo" rev-parse HEAD)"

# The provider's package: the example's sources and recordings, copied as an author would have them. Its
# module is `ITBookstore`: target names are unique across a package graph, and Seek has an ITBookstoreProvider.
package="$work/itbook"
mkdir -p "$package/Sources/itbook-check"
cp -R "$repo/Examples/ITBookstore/Sources/ITBookstoreProvider" "$package/Sources/ITBookstore"
cp "$repo/Examples/outside-provider/main.swift" "$package/Sources/itbook-check/main.swift"
test_target=""
if [ "$with_tests" = 1 ]; then
  mkdir -p "$package/Tests"
  cp -R "$repo/Examples/ITBookstore/Tests/ITBookstoreProviderTests" "$package/Tests/ITBookstoreTests"
  sed -i 's/^import ITBookstoreProvider$/import ITBookstore/' "$package/Tests/ITBookstoreTests/"*.swift
  test_target='
        .testTarget(name: "ITBookstoreTests", dependencies: [
            "ITBookstore", .product(name: "SeekCore", package: "seek"), .product(name: "SeekKit", package: "seek"),
            .product(name: "SeekTesting", package: "seek"),
        ]),'
fi
cat >"$package/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SeekITBook",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "file://$work/seek.git", from: "$version")],
    targets: [
        .target(
            name: "ITBookstore",
            dependencies: [.product(name: "SeekCore", package: "seek"), .product(name: "SeekKit", package: "seek")],
            plugins: [.plugin(name: "EmbedFiles", package: "seek")]  // Demo/: compiled in as EmbeddedFiles
        ),
        .executableTarget(
            name: "itbook-check",
            dependencies: ["ITBookstore", .product(name: "SeekCore", package: "seek"), .product(name: "SeekKit", package: "seek")]
        ),$test_target
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST

# Seek's own pins (its Package.resolved, once it has been built here) as a start, so that its dependencies
# resolve at the versions this checkout builds with; Seek itself is added by the resolution.
if [ -f "$repo/Package.resolved" ]; then cp "$repo/Package.resolved" "$package/Package.resolved"; fi
echo "== outside provider: resolving Seek $version from file://$work/seek.git"
swift package --package-path "$package" resolve
grep -q "\"version\" : \"$version\"" "$package/Package.resolved" || {
  echo "outside provider: Seek was not resolved at version $version" >&2
  cat "$package/Package.resolved" >&2
  exit 1
}
echo "== outside provider: building (nothing shared with this package's .build)"
swift build --package-path "$package" --product itbook-check
"$package/.build/debug/itbook-check"
if [ "$with_tests" = 1 ]; then
  echo "== outside provider: its tests, on the SeekTesting product"
  swift test --package-path "$package"
fi
echo "outside provider: built by version and checked in $((SECONDS - start)) s"
