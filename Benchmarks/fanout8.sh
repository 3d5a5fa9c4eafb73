#!/usr/bin/env bash
# Issue 47: fan-out over the eight remote built-in sources (openlibrary, giphy, aladin, googlebooks,
# kakao, naver, crossref, gutendex; calibre is local and left unset), each a loopback stand-in in its
# own process on its own port (fanout_server.py with SOURCES=8 VARY=1: recorded success bodies from
# ../shared/fixtures at the real API paths, each answer DELAY_MS after the request arrived).
#   1. warm `seek serve`: p50/p99 of /api/v1/search with all eight (no_cache=true, one keep-alive
#      connection, serve_latency.py as serve.sh does), then of each source alone; the ratio
#      p50(all eight) / p50(slowest source alone), target <= 1.05; ROUNDS times, alternating.
#   2. CPU per search against the results it merges: wrk with miss.lua (a new query per request) at
#      CONNECTIONS connections for WRK_SECONDS, at each of LIMITS items per source (the stand-ins
#      answer as many as asked), then the three older sources alone; the server's user + system time
#      from /proc/<pid>/stat divided by the requests, and by the items the sources returned.
# Pacing is off for the benchmark: SEEK_<ID>_RATE_LIMIT=off and SEEK_<ID>_CONCURRENCY=off for all eight
# (the sources' declared defaults, e.g. Gutendex's 2/s and 2 at once, would otherwise be measured).
#
# Usage: SEEK_BIN=/path/to/release/seek Benchmarks/fanout8.sh      (seek-hosts must be beside it)
# Env:   DELAY_MS (200); ROUNDS (3); REQUESTS (50 a latency figure); WRK_SECONDS (10); CONNECTIONS (8);
#        LIMITS ("10 20 40"); LATENCY_ONLY=1 / CPU_ONLY=1 runs one part.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
delay_ms="${DELAY_MS:-200}"
delay_s="$(python3 -c "print($delay_ms / 1000)")"
rounds="${ROUNDS:-3}"
requests="${REQUESTS:-50}"
wrk_seconds="${WRK_SECONDS:-10}"
connections="${CONNECTIONS:-8}"
limits="${LIMITS:-10 20 40}"
[[ -n "${SEEK_BIN:-}" && -x "${SEEK_BIN}" ]] || { echo "set SEEK_BIN to the release seek (seek-hosts beside it)" >&2; exit 1; }
[[ -x "$(dirname "$SEEK_BIN")/seek-hosts" ]] || { echo "no seek-hosts beside $SEEK_BIN" >&2; exit 1; }
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
# shellcheck source=providers.sh
source "$here/providers.sh"   # with_scratch, pid_ticks, started

sources=(openlibrary giphy aladin googlebooks kakao naver crossref gutendex)
all="$(IFS=,; echo "${sources[*]}")"
with_scratch
hz="$(getconf CLK_TCK)"

# One stand-in process a source (one port would cap the client at 64 connections a host, and make
# eight sources share one Python process's GIL).
declare -A base
for id in "${sources[@]}"; do
    SOURCES=8 VARY=1 setsid python3 -u "$here/fanout_server.py" "$delay_s" > "$work/port-$id" 2> "$work/stand-in-$id.log" &
    pids+=($!)
done
for id in "${sources[@]}"; do
    for _ in $(seq 50); do [[ -s "$work/port-$id" ]] && break; sleep 0.1; done
    [[ -s "$work/port-$id" ]] || { cat "$work/stand-in-$id.log" >&2; echo "the $id stand-in did not start" >&2; exit 1; }
    base[$id]="http://127.0.0.1:$(head -n1 "$work/port-$id")"
done

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
unset SEEK_CALIBRE_LIBRARY
mkdir -p "$HOME"
export SEEK_OPENLIBRARY_URL="${base[openlibrary]}/ol" SEEK_OPENLIBRARY_COVERS_URL="${base[openlibrary]}/covers"
export SEEK_GIPHY_URL="${base[giphy]}/giphy" SEEK_GIPHY_API_KEY=bench-key
export SEEK_ALADIN_URL="${base[aladin]}/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key
export SEEK_GOOGLEBOOKS_URL="${base[googlebooks]}" SEEK_GOOGLEBOOKS_API_KEY=bench-key
export SEEK_KAKAO_URL="${base[kakao]}" SEEK_KAKAO_REST_API_KEY=bench-key
export SEEK_NAVER_URL="${base[naver]}" SEEK_NAVER_CLIENT_ID=bench-id SEEK_NAVER_CLIENT_SECRET=bench-secret
export SEEK_CROSSREF_URL="${base[crossref]}" SEEK_GUTENDEX_URL="${base[gutendex]}"
for id in "${sources[@]}"; do
    upper="$(tr '[:lower:]' '[:upper:]' <<< "$id")"
    export "SEEK_${upper}_RATE_LIMIT=off" "SEEK_${upper}_CONCURRENCY=off"
done

"$SEEK_BIN" serve --port 0 2> "$work/serve.log" &
server=$!
pids+=("$server")
url="$(started "$work/serve.log")"
# seek serve runs in seek-hosts: the process whose CPU counts is the one listening.
host_pid="$(pgrep -P "$server" -f seek-hosts | head -1 || true)"
[[ -n "$host_pid" ]] || host_pid="$server"
echo "seek serve at $url (pid $host_pid); eight stand-ins answering after ${delay_ms} ms; seek: $SEEK_BIN" >&2
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, $(date -u +%H:%M) UTC"

# summary LIMIT PROVIDERS: one search; fails unless every source answered; prints "ITEMS ROWS" and the
# sources' counts on stderr.
summary() {
    curl -sf "$url/api/v1/search?providers=$2&q=harbor+check$RANDOM&no_cache=true${1:+&limit=$1}" > "$work/check.json" \
        || { echo "the check search failed" >&2; tail -20 "$work/serve.log" >&2; exit 1; }
    python3 - "$work/check.json" "$2" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
states = {p["id"]: p for p in document["providers"]}
bad = [f"{i}: {states.get(i, {}).get('status')} {states.get(i, {}).get('error')}" for i in sys.argv[2].split(",")
       if states.get(i, {}).get("status") != "ok" or not states[i].get("count")]
if bad:
    sys.exit("not every source answered: " + "; ".join(bad))
print(" ".join(f"{i} {p['count']}" for i, p in states.items()), file=sys.stderr)
print(sum(p["count"] for p in states.values()), len(document["items"]))
PY
}

if [[ -z "${CPU_ONLY:-}" ]]; then
    read -r items rows <<< "$(summary "" "$all")"
    echo "check: all eight answered, $items items from the sources, $rows rows on the page (default limit)"
    # Warm-up: the server's first searches open connections and fill its caches of declarations.
    python3 "$here/serve_latency.py" "$url/api/v1/search?providers=$all&q=harbor&no_cache=true" 20 > /dev/null
    direct="$(python3 "$here/serve_latency.py" "${base[giphy]}/giphy/v1/gifs/search?q=harbor&limit=20" "$requests")"
    echo "direct call to one stand-in (GIPHY, 20 items): $direct"
    for round in $(seq "$rounds"); do
        line="$(python3 "$here/serve_latency.py" "$url/api/v1/search?providers=$all&q=harbor&no_cache=true" "$requests")"
        all_p50="$(awk '{ print $2 }' <<< "$line")"
        echo "round $round: all eight: $line"
        slowest=0 slowest_id=""
        alone=""
        for id in "${sources[@]}"; do
            one="$(python3 "$here/serve_latency.py" "$url/api/v1/search?providers=$id&q=harbor&no_cache=true" "$requests")"
            p50="$(awk '{ print $2 }' <<< "$one")"
            alone+=" $id $p50"
            if awk -v a="$p50" -v b="$slowest" 'BEGIN { exit !(a > b) }'; then slowest="$p50" slowest_id="$id"; fi
        done
        echo "round $round: alone (p50 ms):$alone"
        awk -v a="$all_p50" -v s="$slowest" -v id="$slowest_id" -v r="$round" \
            'BEGIN { printf "round %d: p50 all eight %.1f ms / slowest alone (%s) %.1f ms = %.3f (target <= 1.05)\n", r, a, id, s, a / s }'
    done
fi

if [[ -n "${LATENCY_ONLY:-}" ]]; then exit 0; fi

# cpu LIMIT PROVIDERS LABEL: wrk's miss load; CPU per search and per item the sources returned.
cpu() {
    local limit="$1" providers="$2" label="$3" items rows before after out done
    read -r items rows <<< "$(summary "$limit" "$providers")"
    before="$(pid_ticks "$host_pid")"
    out="$(wrk -t2 -c"$connections" -d"${wrk_seconds}s" --timeout 10s --latency -s "$here/miss.lua" \
        "$url/api/v1/search?providers=$providers&limit=$limit&q=harbor")"
    after="$(pid_ticks "$host_pid")"
    done="$(awk '/requests in/ { print $1 }' <<< "$out")"
    cpu_figures+=("$items $(awk -v t=$((after - before)) -v hz="$hz" -v n="$done" 'BEGIN { print 1000 * t / hz / n }')")
    awk -v label="$label" -v limit="$limit" -v items="$items" -v t=$((after - before)) -v hz="$hz" -v n="$done" '
        /Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
        /short_answers/ { short = $2 } /Non-2xx/ { non2xx = $NF }
        END { ms = 1000 * t / hz / n
              printf "%-12s limit %2d: %4d items merged a search; %6.1f searches/s, p50 %-9s p99 %-9s CPU %.2f ms a search, %.1f µs an item (%d searches, short %s, non-2xx %s)\n",
                     label, limit, items, rps, p50, p99, ms, 1000 * ms / items, n, short == "" ? "-" : short, non2xx == "" ? 0 : non2xx }' <<< "$out"
}

cpu_figures=()
for limit in $limits; do cpu "$limit" "$all" "eight"; done
# Growth across the eight-source rows: CPU a search against items merged, first limit to last.
read -r first_items first_ms <<< "${cpu_figures[0]}"
read -r last_items last_ms <<< "${cpu_figures[-1]}"
awk -v a="$first_items" -v b="$last_items" -v x="$first_ms" -v y="$last_ms" 'BEGIN {
    printf "growth, eight sources: items merged x%.2f (%d -> %d), CPU a search x%.2f (%.2f -> %.2f ms): %s\n",
           b / a, a, b, y / x, x, y, (y / x <= b / a ? "no faster than the results (met)" : "faster than the results (not met)") }'
cpu 20 "openlibrary,giphy,aladin" "three"
