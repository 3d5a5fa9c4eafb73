#!/usr/bin/env bash
# Two `seek serve` builds side by side: both servers on one set of loopback providers (200 ms),
# then ROUNDS batches of 2,000 cached /api/v1/search requests, alternated between them, so that
# the machine's drift falls on both alike. Prints each batch's p50/p99 (ms).
#
# Usage: Benchmarks/serve_ab.sh SEEK_A SEEK_B      (each a `seek` with its `seek-hosts` beside it,
#        or a `seek-hosts` itself)
# Env:   ROUNDS (5), REQUESTS (2000).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
first="${1:?usage: $0 SEEK_A SEEK_B}"
second="${2:?usage: $0 SEEK_A SEEK_B}"
rounds="${ROUNDS:-5}"
requests="${REQUESTS:-2000}"

work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

python3 -u "$here/fanout_server.py" 0.2 > "$work/port" 2> /dev/null &
pids+=($!)
for _ in $(seq 50); do [[ -s "$work/port" ]] && break; sleep 0.1; done
base="http://127.0.0.1:$(head -n1 "$work/port")"

# Starts `$2 serve` with a home of its own under $work/$1 and prints its URL.
start() {
    local dir="$work/$1"
    mkdir -p "$dir/home"
    HOME="$dir/home" XDG_CONFIG_HOME="$dir/home/config" SEEK_CACHE_DIR="$dir/cache" SEEK_DATA_DIR="$dir/data" NO_COLOR=1 \
        SEEK_OPENLIBRARY_URL="$base/ol" SEEK_OPENLIBRARY_COVERS_URL="$base/covers" \
        SEEK_GIPHY_URL="$base/giphy" SEEK_GIPHY_API_KEY=bench-key \
        SEEK_ALADIN_URL="$base/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key \
        SEEK_OPENLIBRARY_RATE_LIMIT=off SEEK_GIPHY_RATE_LIMIT=off SEEK_ALADIN_RATE_LIMIT=off \
        "$2" serve --port 0 > /dev/null 2> "$dir/serve.log" &
    echo $! > "$dir/pid"
    for _ in $(seq 100); do grep -q "serving on" "$dir/serve.log" 2> /dev/null && break; sleep 0.1; done
    grep -o 'http://127.0.0.1:[0-9]*' "$dir/serve.log" | head -1
}

a="$(start a "$first")"; pids+=("$(cat "$work/a/pid")")
b="$(start b "$second")"; pids+=("$(cat "$work/b/pid")")
query="/api/v1/search?q=harbor&providers=openlibrary,giphy,aladin"
python3 "$here/serve_latency.py" "$a$query" 200 5 > /dev/null   # fills each one's cache
python3 "$here/serve_latency.py" "$b$query" 200 5 > /dev/null
echo "A: $first"
echo "B: $second"
for round in $(seq "$rounds"); do
    echo "batch $round  A: $(python3 "$here/serve_latency.py" "$a$query" "$requests" 20)   B: $(python3 "$here/serve_latency.py" "$b$query" "$requests" 20)"
done
