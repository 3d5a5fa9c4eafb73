#!/usr/bin/env bash
# Times the response cache's stored answers (issue 29): SeekCore's models, SeekJSON's writer and
# SeekStore/StoredAnswers.swift compiled with -O into one executable with StoredAnswers/main.swift
# (no package build: seconds, not the minutes the Benchmarks package takes). The stored-answer file
# is taken from REV (a git revision; default the working tree), to compare before and after:
#   bash Benchmarks/stored_answers.sh            # the working tree
#   REV=58d8bbd bash Benchmarks/stored_answers.sh  # an older build's writer
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
[[ -n "${KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
# One module: imports of our own modules and NIO dropped; SeekCore's files that need NIO left out.
for file in "$root"/Sources/SeekCore/{Models,ItemID,ISBN,SeekError,Text}.swift "$root"/Sources/SeekKit/JSONWriter.swift; do
    grep -q "import NIOConcurrencyHelpers" "$file" && continue
    sed -e '/^import SeekCore$/d' -e '/^import SeekJSON$/d' -e '/^import SeekKit$/d' "$file" > "$work/$(basename "$file")"
done
if [[ -n "${REV:-}" ]]; then
    git -C "$root" show "$REV:Sources/SeekStore/StoredAnswers.swift" > "$work/StoredAnswers.swift"
else
    cp "$root/Sources/SeekStore/StoredAnswers.swift" "$work/StoredAnswers.swift"
fi
sed -i -e '/^import SeekCore$/d' -e '/^import SeekJSON$/d' -e '/^import SeekKit$/d' "$work/StoredAnswers.swift"
cp "$root"/Benchmarks/StoredAnswers/*.swift "$work/"
swiftc -O -wmo ${SWIFTC_FLAGS:-} -package-name Seek -module-name StoredAnswerTiming "$work"/*.swift -o "$work/timing" 2>&1 | grep -v warning: || true
"$work/timing"
