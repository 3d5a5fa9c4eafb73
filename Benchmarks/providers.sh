# Sourced by serve.sh and searxng.sh: the three stand-in providers, each in its own process on its own
# port, as real providers are three hosts (one port would cap AsyncHTTPClient at its 64 connections
# per host, a limit no real deployment has).
#
# start_providers DIR DELAY_SECONDS: starts fanout_server.py three times (each in its own process
# group, recorded in the caller's `groups` array when it has one, else `pids`) and sets
#   OL_BASE, GIPHY_BASE, ALADIN_BASE   http://127.0.0.1:PORT of each
#   PROVIDER_PIDS                      the three pids (for CPU accounting)
start_providers() {
    local dir="$1" delay_s="$2" name
    PROVIDER_PIDS=()
    for name in ol giphy aladin; do
        setsid python3 -u "$here/fanout_server.py" "$delay_s" > "$dir/port-$name" &
        PROVIDER_PIDS+=($!)
        if declare -p groups > /dev/null 2>&1; then groups+=($!); else pids+=($!); fi
    done
    for name in ol giphy aladin; do
        for _ in $(seq 50); do [[ -s "$dir/port-$name" ]] && break; sleep 0.1; done
        [[ -s "$dir/port-$name" ]] || { echo "the $name stand-in did not start" >&2; return 1; }
    done
    OL_BASE="http://127.0.0.1:$(head -n1 "$dir/port-ol")"
    GIPHY_BASE="http://127.0.0.1:$(head -n1 "$dir/port-giphy")"
    ALADIN_BASE="http://127.0.0.1:$(head -n1 "$dir/port-aladin")"
}

# with_scratch: makes $work, a temporary folder, and an empty $pids; on exit, every pid in $pids is
# killed and waited for, and $work removed.
with_scratch() {
    work="$(mktemp -d)"
    pids=()
    trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
}

# CPU ticks (user + system, all threads) of the given pids.
pid_ticks() {
    local total=0 pid stat rest
    for pid in "$@"; do
        stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
        rest="${stat##*) }"
        set -- $rest
        total=$((total + ${12} + ${13}))
    done
    echo "$total"
}

# Resident set of a pid in MiB.
rss_mib() { awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# release_seek: sets SEEK_BIN to the release `seek`, with `seek-hosts` beside it (where `seek serve`
# runs), building both first unless SEEK_BIN already names one. Needs $root, the repository.
release_seek() {
    if [[ -z "${SEEK_BIN:-}" ]]; then
        for product in seek seek-hosts; do
            (cd "$root" && swift build -c release --product "$product" --static-swift-stdlib >&2)
        done
        SEEK_BIN="$root/.build/release/seek"
    fi
}

# seek_against_providers: exports what a `seek` run needs to call the stand-ins start_providers
# started: their URLs, stand-in keys, and no rate limits of seek's own.
seek_against_providers() {
    export SEEK_OPENLIBRARY_URL="$OL_BASE/ol" SEEK_OPENLIBRARY_COVERS_URL="$OL_BASE/covers"
    export SEEK_GIPHY_URL="$GIPHY_BASE/giphy" SEEK_GIPHY_API_KEY=bench-key
    export SEEK_ALADIN_URL="$ALADIN_BASE/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key
    export SEEK_OPENLIBRARY_RATE_LIMIT=off SEEK_GIPHY_RATE_LIMIT=off SEEK_ALADIN_RATE_LIMIT=off
    # The figures these scripts keep are of these three sources: the keyless sources added since
    # (crossref, gutendex) would otherwise join every fan-out and reach for the internet.
    export SEEK_PROVIDERS="${SEEK_PROVIDERS:-openlibrary,giphy,aladin}"
}

# started LOG: the base URL a server logged ("serving on http://…"), once it has; fails after 10 s.
started() {
    for _ in $(seq 100); do grep -q "serving on" "$1" 2>/dev/null && break; sleep 0.1; done
    grep -o 'http://127.0.0.1:[0-9]*' "$1" | head -1 | grep . || { cat "$1" >&2; echo "the server did not start" >&2; return 1; }
}
