#!/usr/bin/env bash
# Times reading ISBNs out of provider fields (issue 30): SeekCore's models and ISBN checks and
# SeekKit's CatalogueISBN.swift compiled with -O into one executable with ISBNFields/main.swift (no
# package build), run over the `isbn` lists of the recorded Open Library searches in
# ../shared/fixtures (skipped when absent) and over the benchmark stand-ins' fields. The two files
# are taken from REV (a git revision; default the working tree), to compare before and after:
#   bash Benchmarks/isbn_fields.sh
#   REV=c14817f bash Benchmarks/isbn_fields.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source_of() {  # source_of PATH: the file at REV, or in the working tree
    if [[ -n "${REV:-}" ]]; then git -C "$root" show "$REV:$1"; else cat "$root/$1"; fi
}
for file in Sources/SeekCore/{Models,ItemID,ISBN,SeekError,Text}.swift Sources/SeekKit/CatalogueISBN.swift; do
    source_of "$file" | sed -e '/^import SeekCore$/d' > "$work/$(basename "$file")"
done
cp "$root"/Benchmarks/StoredAnswers/Shims.swift "$root"/Benchmarks/ISBNFields/main.swift "$work/"
swiftc -O -wmo -package-name Seek -module-name ISBNFieldTiming "$work"/*.swift -o "$work/timing" 2>&1 | grep -v warning: || true
shopt -s nullglob
"$work/timing" "$root"/../shared/fixtures/openlibrary/search_*.json
