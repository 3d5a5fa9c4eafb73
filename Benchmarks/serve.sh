#!/usr/bin/env bash
# `seek serve` figures (issues 20 and 30), against three loopback providers on three ports that each
# answer in DELAY_MS (fanout_server.py, one process per provider):
#   - warm fan-out p50/p99 of /api/v1/search (no cache) against a direct call to one provider, and a
#     cached query's p50 (serve_latency.py, one keep-alive connection);
#   - wrk on one connection for the cached query (its latency without Python's client time);
#   - wrk at 16 and 64 connections for a cached query and for MISS mode (miss.lua: a new query per
#     request, so every one fans out): req/s, p50, p99, and the server's CPU per request from /proc;
#   - RSS after LOAD_SECONDS of each load at 64 connections (miss, then cached), each on a new server.
#
# Usage: Benchmarks/serve.sh          (builds the release `seek` and `seek-hosts` first)
# Env:   SEEK_BIN=/path/to/seek skips the build; DELAY_MS (200); WRK_SECONDS (10); LOAD_SECONDS (60);
#        LATENCY_ONLY=1 stops after the three latency lines; SKIP_RSS=1 skips the long runs; RSS_ONLY=1
#        runs only them, RSS_MODES ("miss cached") which; MALLOC_ARENA_MAX=N overrides seek's arena limit;
#        SEEK_SERVE_ARGS adds arguments to `seek serve`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
delay_ms="${DELAY_MS:-200}"
delay_s="$(python3 -c "print($delay_ms / 1000)")"
wrk_seconds="${WRK_SECONDS:-10}"
load_seconds="${LOAD_SECONDS:-60}"
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
# shellcheck source=providers.sh
source "$here/providers.sh"

release_seek

with_scratch
hz="$(getconf CLK_TCK)"

start_providers "$work" "$delay_s"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
seek_against_providers
mkdir -p "$HOME"

server=""
start_seek() {  # a new server on new state; sets $server and $url
    [[ -n "$server" ]] && { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
    rm -rf "$work/cache" "$work/data" "$work/serve.log"
    # shellcheck disable=SC2086
    "$SEEK_BIN" serve --port 0 ${SEEK_SERVE_ARGS:-} 2> "$work/serve.log" &
    server=$!
    pids+=("$server")
    for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
    url="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)"
    [[ -n "$url" ]] || { cat "$work/serve.log" >&2; echo "seek serve did not start" >&2; exit 1; }
}
start_seek
echo "seek serve at $url; providers at $OL_BASE $GIPHY_BASE $ALADIN_BASE answering after ${delay_ms} ms; seek: $SEEK_BIN" >&2

search="$url/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor"
miss="$search&no_cache=true"
direct="$OL_BASE/ol/search.json?q=harbor"

# glibc's malloc arenas in use: the main one and each 64 MiB-aligned anonymous heap.
arenas() {
    python3 -c '
import sys
heaps = sum(1 for line in open(sys.argv[1]) if len(line.split()) < 6 and line.split()[1].startswith("rw")
            and int(line.split("-")[0], 16) % (64 << 20) == 0)
print(heaps + 1)' "/proc/$1/maps"
}

if [[ -z "${RSS_ONLY:-}" ]]; then
echo "warm fan-out (/api/v1/search, no cache, 100 requests): $(python3 "$here/serve_latency.py" "$miss" 100)"
echo "direct call to one provider (100 requests):            $(python3 "$here/serve_latency.py" "$direct" 100)"
echo "cached query (/api/v1/search, 2000 requests):          $(python3 "$here/serve_latency.py" "$search" 2000 20)"
if [[ -n "${LATENCY_ONLY:-}" ]]; then exit 0; fi
fi

# load LABEL CONNECTIONS SECONDS [wrk args…]: one wrk run; prints req/s, p50, p99 and CPU per request.
load() {
    local label="$1" connections="$2" seconds="$3" before after out requests
    shift 3
    before="$(pid_ticks "$server")"
    out="$(wrk -t"$((connections < 2 ? 1 : 2))" -c"$connections" -d"${seconds}s" --timeout 10s --latency "$@")"
    after="$(pid_ticks "$server")"
    requests="$(awk '/requests in/ { print $1 }' <<< "$out")"
    awk -v label="$label" -v c="$connections" -v t=$((after - before)) -v hz="$hz" -v n="$requests" '
        /Requests\/sec/ { rps = $2 }
        $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
        /short_answers/ { short = $2 } /Non-2xx/ { non2xx = $NF } /Socket errors/ { errors = $0 }
        END { printf "wrk %-6s %2d connections: %8.1f req/s  p50 %-9s p99 %-9s  CPU %.2f ms/request  (%d requests, short %s, non-2xx %s%s)\n",
                     label, c, rps, p50, p99, 1000 * t / hz / n, n, short == "" ? "-" : short, non2xx == "" ? 0 : non2xx,
                     errors == "" ? "" : "; " errors }' <<< "$out"
}

if [[ -z "${RSS_ONLY:-}" ]]; then
# The cached query once more, timed by wrk on one connection: the server's latency without Python's
# client time (serve_latency.py's figure above includes its own request writing and response parsing).
load cached 1 "$wrk_seconds" "$search"
for connections in 16 64; do
    load cached "$connections" "$wrk_seconds" "$search"
    load miss "$connections" "$wrk_seconds" -s "$here/miss.lua" "$search"
done
fi

if [[ -n "${SKIP_RSS:-}" ]]; then exit 0; fi
for mode in ${RSS_MODES:-miss cached}; do
    start_seek
    search="$url/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor"
    echo "RSS of a new server: $(rss_mib "$server") MiB"
    if [[ "$mode" == miss ]]; then load miss 64 "$load_seconds" -s "$here/miss.lua" "$search"
    else load cached 64 "$load_seconds" "$search"; fi
    echo "RSS after ${load_seconds} s of $mode load at 64 connections: $(rss_mib "$server") MiB ($(arenas "$server") malloc arenas)"
done
