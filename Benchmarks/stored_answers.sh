#!/usr/bin/env bash
# Times the response cache's stored answers (issues 29, 51): SeekCore's models, the byte helpers they
# use and SeekStore/StoredAnswers.swift compiled with -O into one executable with StoredAnswers/main.swift
# (no package build: seconds, not the minutes the Benchmarks package takes; SeekSupport, where a build
# has it, compiled first as a module of its own). All files are taken from REV (a git revision; default
# the working tree), to compare before and after:
#   bash Benchmarks/stored_answers.sh             # the working tree
#   REV=8f4e9cc bash Benchmarks/stored_answers.sh  # the build before issue 51 (items written by hand)
#   COUNT=1 bash Benchmarks/stored_answers.sh     # also instructions per page encoded (callgrind), which a
#                                                 # busy machine does not disturb as it does CPU time
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/main" "$work/support"

# Copies `path` (at REV, or in the working tree) into folder `to`; false when it is not there or needs NIO.
fetch() {
    local path=$1 to=$2 file
    file="$to/$(basename "$path")"
    if [[ -n "${REV:-}" ]]; then
        git -C "$root" show "$REV:$path" > "$file" 2>/dev/null || { rm -f "$file"; return 1; }
    else
        [[ -f "$root/$path" ]] || return 1
        cp "$root/$path" "$file"
    fi
    if grep -q "^import NIO" "$file"; then rm "$file"; return 1; fi
}

if [[ -n "${REV:-}" ]]; then
    support=$(git -C "$root" ls-tree --name-only "$REV" Sources/SeekSupport/ 2>/dev/null | grep '\.swift$' || true)
else
    support=$(cd "$root" && ls Sources/SeekSupport/*.swift 2>/dev/null || true)
fi
linking=()
if [[ -n "$support" ]]; then
    for path in $support; do fetch "$path" "$work/support" || true; done
    swiftc -O -wmo -suppress-warnings -parse-as-library -package-name Seek -module-name SeekSupport \
        -emit-module -emit-module-path "$work/SeekSupport.swiftmodule" -emit-library -static -o "$work/libSeekSupport.a" \
        "$work"/support/*.swift
    linking=(-I "$work" -L "$work" -lSeekSupport)
fi
for path in Sources/SeekCore/{Models,ItemID,ISBN,SeekError,Text,URLText}.swift \
            Sources/SeekKit/{JSONWriter,GrowingBytes,ByteScan}.swift Sources/SeekStore/StoredAnswers.swift; do
    fetch "$path" "$work/main" || continue
    # One module: imports of our other modules dropped (SeekSupport is a module of its own).
    sed -i -e '/^import Seek\(Core\|Kit\|JSON\)$/d' "$work/main/$(basename "$path")"
done
cp "$root"/Benchmarks/StoredAnswers/*.swift "$work/main/"
swiftc -O -wmo ${SWIFTC_FLAGS:-} -suppress-warnings -package-name Seek -module-name StoredAnswerTiming "${linking[@]}" \
    "$work"/main/*.swift -o "$work/timing"
"$work/timing"
if [[ -n "${COUNT:-}" ]]; then
    # The page encoded 101 times and once: the difference over 100 leaves out start-up and first calls.
    for rounds in 1 101; do
        ENCODE_ONLY=$rounds valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$rounds" "$work/timing" > /dev/null 2>&1
    done
    totals=()
    for rounds in 1 101; do
        totals+=("$(callgrind_annotate "$work/callgrind.$rounds" 2> /dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')")
    done
    awk -v one="${totals[0]}" -v many="${totals[1]}" 'BEGIN { printf "encode page (stored answer writer)      %8.0f instructions (callgrind)\n", (many - one) / 100 }'
fi
