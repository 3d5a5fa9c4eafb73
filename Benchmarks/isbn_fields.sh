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
# SeekSupport (Text.swift imports it, where REV has it) compiled first as a module of its own, as identity.sh does.
if [[ -n "${REV:-}" ]]; then
    support=$(git -C "$root" ls-tree --name-only "$REV" Sources/SeekSupport/ | grep '\.swift$' || true)
else
    support=$(cd "$root" && ls Sources/SeekSupport/*.swift 2>/dev/null || true)
fi
linking=()
if [[ -n "$support" ]]; then
    mkdir -p "$work/support"
    for file in $support; do source_of "$file" > "$work/support/$(basename "$file")"; done
    swiftc -O -wmo -suppress-warnings -parse-as-library -package-name Seek -module-name SeekSupport -emit-module \
        -emit-module-path "$work/SeekSupport.swiftmodule" -emit-library -static -o "$work/libSeekSupport.a" "$work"/support/*.swift
    linking=(-I "$work" -L "$work" -lSeekSupport)
fi
for file in Sources/SeekCore/{Models,ItemID,ISBN,SeekError,Text,URLText}.swift Sources/SeekKit/CatalogueISBN.swift; do
    # URLText.swift (the models' addresses) is not in older revisions.
    source_of "$file" 2>/dev/null | sed -e '/^import SeekCore$/d' > "$work/$(basename "$file")" \
        || { [[ $file == */URLText.swift ]] || { echo "isbn_fields: no $file in ${REV:-the working tree}" >&2; exit 1; }; rm "$work/$(basename "$file")"; }
done
cp "$root"/Benchmarks/StoredAnswers/Shims.swift "$root"/Benchmarks/ISBNFields/main.swift "$work/"
swiftc -O -wmo -package-name Seek -module-name ISBNFieldTiming "${linking[@]}" "$work"/*.swift -o "$work/timing" 2>&1 | grep -v warning: || true
shopt -s nullglob
"$work/timing" "$root"/../shared/fixtures/openlibrary/search_*.json
