#!/usr/bin/env bash
# Issue 48: the merger's joins on the labelled set (precision, recall, F1 for group=work and
# group=edition) and the merge's time for 8 sources × 100 items. SeekCore's models and SeekIdentity's
# merge and identity files are compiled with -O into one executable with Identity/main.swift (no package build), beside
# SeekSupport compiled as its own module, as isbn_fields.sh does. VERBOSE=1 lists every pair the merger
# gets wrong; CHECK_BYTES=1 checks the title read by bytes against the title read by words for every
# record. The set is rebuilt from the recordings with `python3 Benchmarks/Identity/make_set.py`.
#   bash Benchmarks/identity.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/support"
for file in Sources/SeekCore/{Models,ItemID,ISBN,SeekError,Text,URLText,Ranking,Merging,Bounds}.swift \
    Sources/SeekIdentity/{ResultMerger,Identity,TitleBytes}.swift; do
    sed -e '/^import SeekCore$/d' "$root/$file" > "$work/$(basename "$file")"
done
if compgen -G "$root/Sources/SeekSupport/*.swift" > /dev/null; then
    cp "$root"/Sources/SeekSupport/*.swift "$work/support/"
    (cd "$work/support" && swiftc -O -wmo -parse-as-library -package-name Seek -module-name SeekSupport -emit-module -emit-library -static ./*.swift -o libSeekSupport.a 2>&1 | grep -v warning: || true)
fi
cp "$root"/Benchmarks/Identity/Shims.swift "$root"/Benchmarks/Identity/main.swift "$work/"
swiftc -O -wmo -package-name Seek -module-name IdentityTiming -I "$work/support" -L "$work/support" -lSeekSupport "$work"/*.swift -o "$work/timing" 2>&1 | grep -v warning: || true
${PERF:-} "$work/timing" "$root/Benchmarks/Identity/labelled.json"
