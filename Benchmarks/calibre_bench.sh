#!/usr/bin/env bash
# Issue 49: Seek's search of a Calibre library against `calibredb search` on the same library.
#
#   bash Benchmarks/calibre_bench.sh [BOOKS]      (default 100000; the library is kept in $WORK)
#
# 1. Benchmarks/calibre_library.py makes the library (Calibre's schema, realistic titles) unless
#    $WORK/lib/metadata.db exists.
# 2. Queries are drawn from the library itself (read-only): title words, authors, ISBNs in several
#    forms, Korean words, and fixed ones ("the lord of the rings").
# 3. Seek: CalibreProviderTests' benchmark (the debug build SwiftPM's tests use; release is faster):
#    index build time, peak memory, index size, then p50/p99 of every query through the provider.
# 4. calibredb: `calibredb search` for CALIBREDB_QUERIES of the same queries, once each (it loads the
#    whole library every run: a few runs only, the machine is shared).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
books=${1:-100000}
work=${WORK:-/tmp/seek-calibre-bench}
rounds=${ROUNDS:-5}
calibredb_queries=${CALIBREDB_QUERIES:-6}
mkdir -p "$work"
if [[ ! -f $work/lib/metadata.db ]]; then
    python3 "$root/Benchmarks/calibre_library.py" "$work/lib" --books "$books" --covers 100
fi
python3 - "$work/lib/metadata.db" "$work/queries.txt" <<'EOF'
import random, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rng = random.Random(7)
titles = [t for (t,) in db.execute("SELECT title FROM books")]
authors = [a for (a,) in db.execute("SELECT name FROM authors")]
isbns = [v for (v,) in db.execute("SELECT val FROM identifiers WHERE type = 'isbn'")]
queries = ["the lord of the rings", "tolkien", "소년", "emile", "harry potter", "dune"]
# What readers type: a whole title, or two or three words of one in their order; a surname; a full name.
for t in rng.sample(titles, 60):
    words = t.replace(":", " ").split()
    if rng.random() < 0.4 or len(words) < 3:
        queries.append(t.lower())
    else:
        start = rng.randrange(0, len(words) - 1)
        queries.append(" ".join(words[start:start + rng.choice([2, 3])]).lower())
queries += [[w for w in a.split() if not w.endswith(".")][-1] for a in rng.sample(authors, 20)]
queries += rng.sample(authors, 10)
for isbn in rng.sample(isbns, 20):
    queries.append(rng.choice([isbn, f"{isbn[:3]}-{isbn[3]}-{isbn[4:8]}-{isbn[8:12]}-{isbn[12]}"]))
queries += [w for t in rng.sample([t for t in titles if any('\uac00' <= c <= '\ud7a3' for c in t)], 10) for w in t.split()[:1]]
open(sys.argv[2], "w").write("\n".join(queries) + "\n")
print(f"{len(queries)} queries in {sys.argv[2]}")
EOF
cd "$root"
# The test target alone when the package's other test targets build (swift test builds them all).
SEEK_CALIBRE_BENCH_LIBRARY=$work/lib SEEK_CALIBRE_BENCH_QUERIES=$work/queries.txt SEEK_CALIBRE_BENCH_ROUNDS=$rounds \
SEEK_CALIBRE_BENCH_SHOW=${SHOW:-0} ${RUNNER:-swift test --no-parallel --filter CalibreBenchmark} 2>&1 | grep "calibre-bench" || true
if command -v calibredb >/dev/null; then
    export QT_QPA_PLATFORM=offscreen CALIBRE_CONFIG_DIRECTORY=$work/calibre-config
    mkdir -p "$CALIBRE_CONFIG_DIRECTORY"
    head -n "$calibredb_queries" "$work/queries.txt" | while IFS= read -r query; do
        start=$(date +%s.%N)
        count=$(calibredb search --limit 20 --library-path "$work/lib" "$query" 2>/dev/null | tr ',' '\n' | grep -c . || true)
        end=$(date +%s.%N)
        printf 'calibredb: %8.0f ms  %3s hits  %s\n' "$(echo "($end - $start) * 1000" | bc)" "$count" "$query"
    done
else
    echo "calibredb: not installed (apt-get install -y calibre)"
fi
