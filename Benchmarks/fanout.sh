#!/usr/bin/env bash
# Fan-out overhead: a whole `seek search` process against three loopback providers that each
# answer after 200 ms, timed with hyperfine. Target (issue 18): mean wall time / 200 ms <= 1.15.
#
# Usage: Benchmarks/fanout.sh [runs]      (from anywhere; builds the release `seek` first)
# Env:   SEEK_BIN=/path/to/seek skips the build; DELAY_MS changes the providers' delay.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs="${1:-20}"
delay_ms="${DELAY_MS:-200}"
delay_s="$(python3 -c "print($delay_ms / 1000)")"

if [[ -z "${SEEK_BIN:-}" ]]; then
    # The release binary as CI builds it (runtime linked in), in a scratch path of its own so the
    # release build neither waits for nor disturbs debug builds.
    (cd "$root" && swift build -c release --product seek --static-swift-stdlib --scratch-path "$root/.build-release" >&2)
    SEEK_BIN="$root/.build-release/release/seek"
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

python3 -u "$here/fanout_server.py" "$delay_s" > "$work/port" &
server_pid=$!
for _ in $(seq 50); do [[ -s "$work/port" ]] && break; sleep 0.1; done
port="$(head -n1 "$work/port")"
base="http://127.0.0.1:$port"

# A private home with no config, no response cache between runs, and every provider on loopback.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data"
export SEEK_SEARCH_CACHE_TTL=0 NO_COLOR=1
export SEEK_OPENLIBRARY_URL="$base/ol" SEEK_OPENLIBRARY_COVERS_URL="$base/covers"
export SEEK_GIPHY_URL="$base/giphy" SEEK_GIPHY_API_KEY=bench-key
export SEEK_ALADIN_URL="$base/aladin/ttb/api" SEEK_ALADIN_TTB_KEY=bench-key
mkdir -p "$HOME"

# The three providers, or those of them this build has.
providers="$("$SEEK_BIN" providers --format json | python3 -c '
import json, sys
document = json.load(sys.stdin)
entries = document.get("providers", document.get("entries", [])) if isinstance(document, dict) else document
known = {entry.get("id") for entry in entries}
print(",".join(p for p in ["openlibrary", "giphy", "aladin"] if p in known))')"
echo "providers: $providers (each answering after ${delay_ms} ms), seek: $SEEK_BIN" >&2

# Sanity check: one run must succeed with every provider answering (exit 0).
"$SEEK_BIN" search harbor --providers "$providers" --format json > "$work/check.json"

hyperfine --warmup 2 --runs "$runs" --shell=none --export-json "$work/hyperfine.json" \
    --prepare "rm -rf $work/cache" \
    "$SEEK_BIN search harbor --providers $providers --format json"

python3 - "$work/hyperfine.json" "$delay_ms" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
delay = float(sys.argv[2]) / 1000
mean, median, stddev = result["mean"], result["median"], result["stddev"] or 0.0
if delay == 0:  # DELAY_MS=0: the process's own cost, no ratio
    print(f"search with instant providers: mean {mean * 1000:.1f} ms ± {stddev * 1000:.1f} ms, median {median * 1000:.1f} ms")
    sys.exit(0)
print(f"fan-out overhead: mean {mean * 1000:.1f} ms ± {stddev * 1000:.1f} ms, median {median * 1000:.1f} ms "
      f"(min {result['min'] * 1000:.1f}, max {result['max'] * 1000:.1f}) / {delay * 1000:.0f} ms "
      f"= {mean / delay:.3f} by the mean, {median / delay:.3f} by the median (target <= 1.15)")
PY
