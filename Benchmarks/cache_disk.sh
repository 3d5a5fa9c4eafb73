#!/usr/bin/env bash
# The response cache's stored answers under a miss load (a new query per request, miss.lua): every
# SAMPLE seconds, the bytes of answers kept and the size of seek.sqlite with its WAL, against the bound
# SEEK_CACHE_DISK_MB sets. Without a bound the database grows by some 10 MB a second here; with one it
# stays within the bound and an eighth.
#
# Usage: Benchmarks/cache_disk.sh     (builds the release `seek` and `seek-hosts` first)
# Env:   SEEK_BIN=/path/to/seek skips the build; DISK_MB (32); SECONDS_TOTAL (60); SAMPLE (10);
#        CONNECTIONS (64); DELAY_MS (200): the stand-in providers' answer time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
disk_mb="${DISK_MB:-32}"
total="${SECONDS_TOTAL:-60}"
sample="${SAMPLE:-10}"
connections="${CONNECTIONS:-64}"
delay_s="$(python3 -c "print(${DELAY_MS:-200} / 1000)")"
command -v wrk > /dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
# shellcheck source=providers.sh
source "$here/providers.sh"

release_seek
with_scratch
start_providers "$work" "$delay_s"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
export SEEK_CACHE_DISK_MB="$disk_mb"
seek_against_providers
mkdir -p "$HOME"

"$SEEK_BIN" serve --port 0 2> "$work/serve.log" &
server=$!
pids+=("$server")
url="$(started "$work/serve.log")"

database="$work/data/seek.sqlite"
measure() {  # seconds since the load began; the bytes kept and the files' size, in MB
    python3 - "$database" "$1" "$disk_mb" << 'EOF'
import os, sqlite3, sys
path, elapsed, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
files = sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
kept = 0
if os.path.exists(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    kept = db.execute("SELECT coalesce(sum(length(body)), 0) FROM responseCache").fetchone()[0]
    db.close()
mb = 1024 * 1024
print(f"{elapsed:>5} s  answers kept {kept / mb:7.1f} MB  seek.sqlite + WAL {files / mb:7.1f} MB  bound {bound:g} MB")
EOF
}

echo "seek serve at $url, SEEK_CACHE_DISK_MB=$disk_mb; $connections connections of new queries for $total s" >&2
wrk -t2 -c"$connections" -d"${total}s" --timeout 10s -s "$here/miss.lua" \
    "$url/api/v1/search?providers=openlibrary,giphy,aladin&q=harbor" > "$work/wrk.txt" &
load=$!
pids+=("$load")
for ((elapsed = sample; elapsed <= total; elapsed += sample)); do
    sleep "$sample"
    measure "$elapsed"
done
wait "$load" || true
awk '/Requests\/sec/ { print "wrk: " $2 " requests/s" }' "$work/wrk.txt"
sleep 1
measure "end"
