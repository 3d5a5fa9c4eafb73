#!/usr/bin/env bash
# `seek serve` figures (issue 20): warm fan-out over three loopback providers that each answer in
# 200 ms (p50/p99 of /api/v1/search against a direct call to one provider), a cached query's p50,
# wrk throughput and p99 at 16 and 64 connections for a cached query and a miss, and RSS after 60 s
# of load.
#
# Usage: Benchmarks/serve.sh          (builds the release `seek` first, as fanout.sh does)
# Env:   SEEK_BIN=/path/to/seek skips the build; DELAY_MS (200); LOAD_SECONDS (60) for the RSS run;
#        LATENCY_ONLY=1 stops after the three latency lines (no wrk, no RSS run).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
delay_ms="${DELAY_MS:-200}"
delay_s="$(python3 -c "print($delay_ms / 1000)")"
load_seconds="${LOAD_SECONDS:-60}"
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }

if [[ -z "${SEEK_BIN:-}" ]]; then
    # `seek serve` runs in seek-hosts, built beside seek.
    for product in seek seek-hosts; do
        (cd "$root" && swift build -c release --product "$product" --static-swift-stdlib --scratch-path "$root/.build-release" >&2)
    done
    SEEK_BIN="$root/.build-release/release/seek"
fi

work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

python3 -u "$here/fanout_server.py" "$delay_s" > "$work/port" &
pids+=($!)
for _ in $(seq 50); do [[ -s "$work/port" ]] && break; sleep 0.1; done
base="http://127.0.0.1:$(head -n1 "$work/port")"

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
export SEEK_OPENLIBRARY_URL="$base/ol" SEEK_OPENLIBRARY_COVERS_URL="$base/covers"
export SEEK_GIPHY_URL="$base/giphy" SEEK_GIPHY_API_KEY=bench-key
export SEEK_ALADIN_URL="$base/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key
export SEEK_OPENLIBRARY_RATE_LIMIT=off SEEK_GIPHY_RATE_LIMIT=off SEEK_ALADIN_RATE_LIMIT=off
mkdir -p "$HOME"
"$SEEK_BIN" serve --port 0 2> "$work/serve.log" &
server=$!
pids+=("$server")
for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
url="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)"
echo "seek serve at $url, providers at $base answering after ${delay_ms} ms; seek: $SEEK_BIN" >&2

miss="$url/api/v1/search?q=harbor&providers=openlibrary,giphy,aladin&no_cache=true"
cached="$url/api/v1/search?q=harbor&providers=openlibrary,giphy,aladin"
direct="$base/ol/search.json?q=harbor"

echo "warm fan-out (/api/v1/search, no cache, 100 requests): $(python3 "$here/serve_latency.py" "$miss" 100)"
echo "direct call to one provider (100 requests):            $(python3 "$here/serve_latency.py" "$direct" 100)"
echo "cached query (/api/v1/search, 2000 requests):          $(python3 "$here/serve_latency.py" "$cached" 2000 20)"
if [[ -n "${LATENCY_ONLY:-}" ]]; then exit 0; fi

for connections in 16 64; do
    echo "wrk cached, $connections connections: $(wrk -t2 -c"$connections" -d10s --latency "$cached" | grep -E 'Requests/sec|^ +99%' | tr -s ' ' | tr '\n' ' ')"
    echo "wrk miss,   $connections connections: $(wrk -t2 -c"$connections" -d10s --latency "$miss" | grep -E 'Requests/sec|^ +99%' | tr -s ' ' | tr '\n' ' ')"
done

echo "RSS before the long run: $(grep VmRSS "/proc/$server/status" | tr -s ' ')"
wrk -t2 -c64 -d"${load_seconds}s" "$cached" > /dev/null
echo "RSS after ${load_seconds} s of load (64 connections, cached): $(grep VmRSS "/proc/$server/status" | tr -s ' ')"
