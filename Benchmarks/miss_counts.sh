#!/usr/bin/env bash
# What one miss costs `seek serve` in counts that do not depend on what else the machine is doing
# (issue 30): instructions per miss (valgrind's callgrind) and system calls per miss (strace -c),
# each over N new-query searches to the three stand-in providers (providers.sh, answering at once),
# after a warm-up of 20; and instructions per cached search (the same query N times, served from the
# memory tier, after it was asked once). Use it to compare two builds on a busy machine; wrk and /proc (serve.sh) give
# the time figures on a quiet one.
#
# Usage: Benchmarks/miss_counts.sh              (builds the release `seek` and `seek-hosts` first)
# Env:   SEEK_BIN=/path/to/seek skips the build; N (100); SKIP_CALLGRIND=1, SKIP_STRACE=1, SKIP_HITS=1;
#        WAL_FRAMES=1 also counts SQLite's WAL frames a miss and a transaction (wal_frames.py);
#        PROFILE=FILE keeps callgrind's profile of the misses, HIT_PROFILE=FILE that of the hits
#        (read them with callgrind_annotate FILE).
# Needs: valgrind, strace, curl.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
count="${N:-100}"
# shellcheck source=providers.sh
source "$here/providers.sh"

release_seek

with_scratch

start_providers "$work" 0
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" NO_COLOR=1
seek_against_providers
mkdir -p "$HOME"

# valgrind cannot read the debug information of a binary this large ("possibly corrupted
# debuginfo"): it runs a copy without it, symbols kept.
hosts="$work/seek-hosts"
objcopy --strip-debug "$(dirname "$SEEK_BIN")/seek-hosts" "$hosts"

# serve WRAPPER…: starts `seek-hosts serve` on new state under WRAPPER; sets $server, $url.
serve() {
    rm -rf "$work/cache" "$work/data" "$work/serve.log"
    SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" "$@" "$hosts" serve --port 0 2> "$work/serve.log" &
    server=$!
    pids+=("$server")
    for _ in $(seq 600); do grep -q "serving on" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
    url="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)"
    [[ -n "$url" ]] || { cat "$work/serve.log" >&2; echo "seek serve did not start" >&2; exit 1; }
    for index in $(seq 20); do curl -sf -o /dev/null "$url/api/v1/search?q=warm-up+$index"; done
}

# misses: N searches, each a query not asked before; fails unless every one is a 200.
misses() {
    local index ok=0
    for index in $(seq "$count"); do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/search?q=miss+$index+$RANDOM")" == 200 ]] && ok=$((ok + 1))
    done
    [[ "$ok" == "$count" ]] || { echo "only $ok of $count searches answered 200" >&2; exit 1; }
}

stop() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }

# hits: N searches for one query asked once before, over one keep-alive connection (serve_latency.py,
# which exits non-zero unless every answer is a 200): as a browser or an API client asks, so accepting
# a connection is not counted with each search.
hits() {
    local query="$url/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor"
    curl -sf -o /dev/null "$query"
    callgrind_control -d "$server" > /dev/null
    python3 "$here/serve_latency.py" "$query" "$count" 0 > /dev/null
}

# counted TOTAL_LABEL COPY_TO: the instructions of the newest callgrind dump, per search.
counted() {
    local profile total
    sleep 1
    profile="$(ls -t "$work"/callgrind.out.* | head -1)"
    total="$(callgrind_annotate "$profile" 2> /dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')"
    echo "$1 (callgrind, $count searches): $(awk -v t="$total" -v n="$count" 'BEGIN { printf "%.2f M", t / n / 1e6 }')"
    [[ -n "$2" ]] && cp "$profile" "$2"
    return 0
}

if [[ -z "${SKIP_CALLGRIND:-}" ]]; then
    # Counted from a dump after the warm-up to a dump after the misses (each dump restarts the counts).
    serve valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" -q
    callgrind_control -d "$server" > /dev/null
    misses
    callgrind_control -d "$server" > /dev/null
    counted "instructions per miss" "${PROFILE:-}"
    if [[ -z "${SKIP_HITS:-}" ]]; then
        hits
        callgrind_control -d "$server" > /dev/null
        counted "instructions per cached search" "${HIT_PROFILE:-}"
    fi
    stop
fi

# traced FILE STRACE_OPTION…: strace of the server, written to FILE, over the misses.
traced() {
    local out="$1" tracer
    shift
    strace -f "$@" -p "$server" -o "$out" 2> /dev/null &
    tracer=$!
    sleep 1
    misses
    sleep 1
    kill -INT "$tracer"
    wait "$tracer" || true
}

if [[ -z "${SKIP_STRACE:-}" ]]; then
    serve env
    traced "$work/strace.txt" -c
    echo "system calls per miss (strace -c, $count misses):"
    awk -v n="$count" '$1 ~ /^[0-9.]+$/ && NF >= 5 { printf "  %-16s %7.1f\n", $NF, $4 / n }' "$work/strace.txt" |
        sort -k2 -n -r | head -16
    stop
fi

if [[ -n "${WAL_FRAMES:-}" ]]; then
    serve env
    traced "$work/pwrite.txt" -y -xx -s 24 -e trace=pwrite64
    python3 "$here/wal_frames.py" "$work/pwrite.txt" "$count"
    stop
fi
