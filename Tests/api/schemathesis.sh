#!/usr/bin/env bash
# Runs schemathesis (PyPI) against a running `seek serve --demo` from its own /openapi.yaml: every
# operation with bounded generated examples; fails on a 5xx or an answer that breaks the document.
# Usage: Tests/api/schemathesis.sh SEEK_BINARY [max-examples]
set -euo pipefail
seek="${1:?usage: $0 SEEK_BINARY [max-examples]}"
examples="${2:-25}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/.venv-ci-api"
[ -x "$venv/bin/schemathesis" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q schemathesis; }

work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
"$seek" serve --port 0 --demo 2> "$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q "serving on" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
url="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)"
[ -n "$url" ] || { echo "seek serve did not start:"; cat "$work/serve.log"; exit 1; }
echo "schemathesis against $url/openapi.yaml ($examples examples per operation)"
"$venv/bin/schemathesis" run "$url/openapi.yaml" \
    --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
    --max-examples "$examples" --request-timeout 20 --seed 1 > "$work/st.log" 2>&1 || { tail -c 6000 "$work/st.log"; exit 1; }
grep -E "^(API Operations|  Selected|  Tested|Test cases|  [0-9]+ generated)|passed|failure" "$work/st.log" | cut -c1-200
kill "$server"; wait "$server" || { echo "seek serve did not exit cleanly on SIGTERM"; exit 1; }
server=""
