#!/usr/bin/env bash
# The floor under issue 30's miss figures: FanoutFloor (Hummingbird in, AsyncHTTPClient out, three
# calls a request, no search logic) under serve.sh's miss load, against the same three stand-ins on
# three ports. Prints req/s, p50, p99 and the server's CPU per request at each number of connections,
# the stand-ins' CPU per request, and the same for `seek serve` (SEEK_BIN) when it is given.
# BENCHMARKS.md (issue 30, eighth session) reads them.
#
# Usage: Benchmarks/floor.sh
# Env:   DELAY_MS (200); WRK_SECONDS (10); CONNECTIONS ("16 64"); BURN_US (0: see FanoutFloor);
#        JITTER (0: see fanout_server.py); SEEK_BIN=/path/to/seek adds rows for `seek serve`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
delay_s="$(python3 -c "print(${DELAY_MS:-200} / 1000)")"
wrk_seconds="${WRK_SECONDS:-10}"
# shellcheck source=providers.sh
source "$here/providers.sh"
(cd "$here/FanoutFloor" && swift build -c release >&2)
floor_bin="$here/FanoutFloor/.build/release/fanout-floor"

with_scratch
hz="$(getconf CLK_TCK)"
start_providers "$work" "$delay_s"

# run LABEL URL: the miss load at each of CONNECTIONS against the server whose pid is $server.
run() {
    local label="$1" url="$2" connections out before after pbefore pafter n
    for connections in ${CONNECTIONS:-16 64}; do
        before="$(pid_ticks "$server")"; pbefore="$(pid_ticks "${PROVIDER_PIDS[@]}")"
        out="$(wrk -t"$((connections < 2 ? 1 : 2))" -c"$connections" -d"${wrk_seconds}s" --timeout 10s --latency -s "$here/miss.lua" "$url")"
        after="$(pid_ticks "$server")"; pafter="$(pid_ticks "${PROVIDER_PIDS[@]}")"
        n="$(awk '/requests in/ { print $1 }' <<< "$out")"
        awk -v label="$label" -v c="$connections" -v t=$((after - before)) -v p=$((pafter - pbefore)) -v hz="$hz" -v n="$n" '
            /Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 } /Non-2xx/ { bad = $NF }
            END { printf "%-13s %2d connections: %7.1f req/s  p50 %-9s p99 %-9s  CPU %.2f ms/request, stand-ins %.2f ms/request (non-2xx %d)\n",
                         label, c, rps, p50, p99, 1000 * t / hz / n, 1000 * p / hz / n, bad }' <<< "$out"
    done
}

"$floor_bin" 0 "$OL_BASE" "$GIPHY_BASE" "$ALADIN_BASE" > "$work/floor.log" 2>&1 &
server=$!; pids+=("$server")
floor_url="$(started "$work/floor.log")"
run "fanout-floor" "$floor_url/search?q=harbor"
kill "$server"; wait "$server" 2>/dev/null || true

if [[ -n "${SEEK_BIN:-}" ]]; then
    export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
    seek_against_providers; mkdir -p "$HOME"
    "$SEEK_BIN" serve --port 0 2> "$work/serve.log" &
    server=$!; pids+=("$server")
    seek_url="$(started "$work/serve.log")"
    run "seek serve" "$seek_url/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor"
fi
