#!/usr/bin/env bash
# CPU per miss of two `seek serve` builds, alternated (issue 30): each round starts a new server of
# each build on the same three stand-in providers (providers.sh, three ports, DELAY_MS each) and runs
# wrk's miss load (miss.lua: a new query per request) against it; prints req/s, p50, p99 and the
# server's CPU per request (user + system ticks from /proc over the run). Alternating puts the
# machine's drift on both builds alike.
#
# Usage: Benchmarks/miss_ab.sh SEEK_A [SEEK_B]   (each a `seek` with its `seek-hosts` beside it;
#        one build alone is measured ROUNDS times)
# Env:   ROUNDS (3), SECONDS_EACH (10), CONNECTIONS (64), DELAY_MS (200);
#        WRAP_A, WRAP_B: a command each server is started under (e.g. "taskset -c 0").
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
first="${1:?usage: $0 SEEK_A [SEEK_B]}"
second="${2:-}"
rounds="${ROUNDS:-3}"
seconds="${SECONDS_EACH:-10}"
connections="${CONNECTIONS:-64}"
delay_s="$(python3 -c "print(${DELAY_MS:-200} / 1000)")"
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
# shellcheck source=providers.sh
source "$here/providers.sh"

with_scratch
start_providers "$work" "$delay_s"
seek_against_providers
search="/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor"

# measure LABEL SEEK WRAP: one new server of SEEK (under WRAP), one wrk run against it.
measure() {
    local label="$1" seek="$2" wrap="$3" dir="$work/$1" server url before after out
    rm -rf "$dir"
    mkdir -p "$dir/home"
    # shellcheck disable=SC2086
    HOME="$dir/home" XDG_CONFIG_HOME="$dir/home/config" SEEK_CACHE_DIR="$dir/cache" SEEK_DATA_DIR="$dir/data" NO_COLOR=1 \
        $wrap "$seek" serve --port 0 > /dev/null 2> "$dir/serve.log" &
    server=$!
    pids+=("$server")
    url="$(started "$dir/serve.log")"
    # The server is seek-hosts itself (seek execs it), so its pid is the one to read.
    for index in $(seq 20); do curl -sf -o /dev/null "$url/api/v1/search?q=warm-up+$index"; done
    before="$(pid_ticks "$server")"
    out="$(wrk -t2 -c"$connections" -d"${seconds}s" --timeout 10s --latency -s "$here/miss.lua" "$url$search")"
    after="$(pid_ticks "$server")"
    kill "$server" 2> /dev/null || true
    wait "$server" 2> /dev/null || true
    awk -v label="$label" -v ticks="$((after - before))" -v hz="$(getconf CLK_TCK)" '
        /Requests\/sec/ { rate = $2 }
        /^ +50%/ { p50 = $2 } /^ +99%/ { p99 = $2 }
        /requests in/ { requests = $1 }
        /short_answers/ { short = $2 }
        END { printf "%-2s %7.1f req/s  p50 %-9s p99 %-9s  CPU %.2f ms/miss  (%d requests, short %s)\n",
                     label, rate, p50, p99, ticks / hz * 1000 / requests, requests, short }' <<< "$out"
}

echo "A: $first ${WRAP_A:+(under $WRAP_A)}"
[[ -n "$second" ]] && echo "B: $second ${WRAP_B:+(under $WRAP_B)}"
echo "$connections connections, ${seconds} s a run, providers at ${DELAY_MS:-200} ms on three ports"
for round in $(seq "$rounds"); do
    measure A "$first" "${WRAP_A:-}"
    [[ -n "$second" ]] && measure B "$second" "${WRAP_B:-}"
done
