#!/usr/bin/env bash
# Issue 27's figures: `seek serve` on the shared store (PostgreSQL) against the embedded one (SQLite).
#  1. a cache hit read through the store: instance A answers 200 new queries, instance B (its memory
#     tier empty) answers each once — B's p50, two instances on one SQLite file vs on one database;
#  2. the warm fan-out with the database against a direct call (serve.sh's three latency lines);
#  3. a miss load (wrk, 64 connections): one instance direct vs two behind nginx, on one database;
#  4. a 5/s limit for Open Library held by two instances together: upstream calls per second.
#
# Usage: Benchmarks/shared_store.sh        (builds the release binaries as serve.sh does)
# Env:   SEEK_BIN=/path/to/seek skips the build; DELAY_MS (200) for 2 and 3; HITS (200).
# Starts a throwaway PostgreSQL (Tests/support/postgres.sh) and nginx (nginx-light), both on 127.0.0.1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
delay_ms="${DELAY_MS:-200}"
hits="${HITS:-200}"
for tool in wrk nginx psql; do
    command -v "$tool" > /dev/null || { echo "$tool is not installed (apt-get install wrk nginx-light postgresql)" >&2; exit 1; }
done
if [[ -z "${SEEK_BIN:-}" ]]; then
    for product in seek seek-hosts; do
        (cd "$root" && swift build -c release --product "$product" --static-swift-stdlib --scratch-path "$root/.build-release" >&2)
    done
    SEEK_BIN="$root/.build-release/release/seek"
fi
export SEEK_BIN

work="$(mktemp -d)"
chmod 755 "$work"  # PostgreSQL runs as its own user, in a folder below this one
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    bash "$root/Tests/support/postgres.sh" stop "$work/pg" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

database="$(bash "$root/Tests/support/postgres.sh" start "$work/pg")"

# Providers: one instant stand-in (the store-hit figure) and one answering after DELAY_MS.
start_providers() {  # NAME DELAY_SECONDS; its URL in $served
    python3 -u "$here/fanout_server.py" "$2" > "$work/$1.port" &
    pids+=($!)
    for _ in $(seq 50); do [[ -s "$work/$1.port" ]] && break; sleep 0.1; done
    served="http://127.0.0.1:$(head -n1 "$work/$1.port")"
}
start_providers instant 0; instant="$served"
start_providers slow "$(python3 -c "print($delay_ms / 1000)")"; slow="$served"

# An instance: `serve NAME PROVIDERS_BASE DATA_DIR [VAR=VALUE...]`; its URL in $served (not a command
# substitution: that subshell would own the server, and its exit would run the clean-up).
serve() {
    local name="$1" base="$2" data="$3"
    shift 3
    mkdir -p "$work/$name/home"
    env -i PATH="$PATH" HOME="$work/$name/home" SEEK_CACHE_DIR="$work/$name/cache" SEEK_DATA_DIR="$data" NO_COLOR=1 \
        SEEK_OPENLIBRARY_URL="$base/ol" SEEK_OPENLIBRARY_COVERS_URL="$base/covers" \
        SEEK_GIPHY_URL="$base/giphy" SEEK_GIPHY_API_KEY=bench-key \
        SEEK_ALADIN_URL="$base/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key \
        SEEK_OPENLIBRARY_RATE_LIMIT=off SEEK_GIPHY_RATE_LIMIT=off SEEK_ALADIN_RATE_LIMIT=off "$@" \
        "$SEEK_BIN" serve --port 0 > /dev/null 2> "$work/$name.log" &
    pids+=($!)
    for _ in $(seq 100); do grep -q "serving on" "$work/$name.log" 2>/dev/null && break; sleep 0.1; done
    served="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/$name.log" | head -1)"
}

echo "== 1. a cache hit read through the store (instance B's first answer to what instance A cached), $hits queries"
serve sqlite-a "$instant" "$work/shared-sqlite"; a="$served"
serve sqlite-b "$instant" "$work/shared-sqlite"; b="$served"
echo "SQLite (one file, two instances):     $(python3 "$here/store_hit.py" "$a" "$b" "$hits" sqlite)"
db1="$(bash "$root/Tests/support/postgres.sh" createdb "$work/pg" bench_hit)"
serve pg-a "$instant" "$work/pg-a-data" SEEK_DATABASE_URL="$db1"; a="$served"
serve pg-b "$instant" "$work/pg-b-data" SEEK_DATABASE_URL="$db1"; b="$served"
echo "PostgreSQL (one database, two instances): $(python3 "$here/store_hit.py" "$a" "$b" "$hits" postgres)"

echo "== 2. warm fan-out with the database (serve.sh, providers at ${delay_ms} ms)"
db2="$(bash "$root/Tests/support/postgres.sh" createdb "$work/pg" bench_fanout)"
SEEK_DATABASE_URL="$db2" LATENCY_ONLY=1 DELAY_MS="$delay_ms" bash "$here/serve.sh"

echo "== 3. a miss load at 64 connections: one instance, and two behind nginx (providers at ${delay_ms} ms)"
db3="$(bash "$root/Tests/support/postgres.sh" createdb "$work/pg" bench_fleet)"
serve fleet-1 "$slow" "$work/fleet-1-data" SEEK_DATABASE_URL="$db3"; one="$served"
serve fleet-2 "$slow" "$work/fleet-2-data" SEEK_DATABASE_URL="$db3"; two="$served"
mkdir -p "$work/nginx/logs"
nginx_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes 1;
error_log $work/nginx/logs/error.log warn;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
    upstream seek { server ${one#http://}; server ${two#http://}; keepalive 64; }
    server {
        listen 127.0.0.1:$nginx_port;
        location / { proxy_pass http://seek; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
sleep 0.5
miss_lua="$work/miss.lua"
cat > "$miss_lua" <<'LUA'
counter = 0
request = function()
    counter = counter + 1
    return wrk.format("GET", "/api/v1/search?q=miss+" .. math.random(1, 1000000000) .. "+" .. counter .. "&providers=openlibrary,giphy,aladin")
end
LUA
for target in "$one" "http://127.0.0.1:$nginx_port"; do
    label=$([[ "$target" == "$one" ]] && echo "one instance, direct  " || echo "two instances, nginx  ")
    echo "$label $(wrk -t2 -c64 -d10s --latency -s "$miss_lua" "$target" | grep -E 'Requests/sec|^ +(50|99)%' | tr -s ' ' | tr '\n' ' ')"
done

echo "== 4. SEEK_OPENLIBRARY_RATE_LIMIT=5/s on two instances together (10 s of new searches, 16 at a time)"
db4="$(bash "$root/Tests/support/postgres.sh" createdb "$work/pg" bench_budget)"
serve budget-1 "$instant" "$work/budget-1-data" SEEK_DATABASE_URL="$db4" SEEK_OPENLIBRARY_RATE_LIMIT=5/s; r1="$served"
serve budget-2 "$instant" "$work/budget-2-data" SEEK_DATABASE_URL="$db4" SEEK_OPENLIBRARY_RATE_LIMIT=5/s; r2="$served"
python3 "$here/budget.py" "$instant" 10 16 "$r1" "$r2"
