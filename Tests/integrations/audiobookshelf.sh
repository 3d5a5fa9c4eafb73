#!/usr/bin/env bash
# Audiobookshelf's custom metadata provider contract at /integrations/audiobookshelf/search, checked
# against Audiobookshelf's own specification file (fixtures/audiobookshelf/, byte-identical copy) with
# schemathesis (PyPI), on `seek serve --demo`:
#   1. SEEK_AUDIOBOOKSHELF_TOKEN set: schemathesis with the token (every check, the token's refusal
#      without it included: ignored_auth), then a missing and a wrong token by hand: 401 {"error": "…"};
#   2. a personal server on loopback without a token: open;
#   3. a public server without a token: 404 (the route is not there).
# Usage: Tests/integrations/audiobookshelf.sh SEEK_BINARY [max-examples]
set -euo pipefail
seek="${1:?usage: $0 SEEK_BINARY [max-examples]}"
examples="${2:-50}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
spec="$root/../shared/fixtures/audiobookshelf/custom-metadata-provider-specification.yaml"
if [ ! -f "$spec" ]; then
  echo "skipped: $spec is absent (the fixtures folder ../shared/fixtures)"
  exit 0
fi
venv="$root/.venv-ci-api"
[ -x "$venv/bin/schemathesis" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q schemathesis; }

work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home" XDG_CONFIG_HOME="$work/config" SEEK_CACHE_DIR="$work/cache" SEEK_DATA_DIR="$work/data" NO_COLOR=1
unset SEEK_AUDIOBOOKSHELF_TOKEN SEEK_PUBLIC SEEK_SECRET

passed=0
failed=0
check() { # NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAILED: $1: expected $2, got $3"; fi
}

# Starts seek serve --demo with the given arguments (environment before them), sets $server and $url.
start() {
  env "$@" "$seek" serve --port 0 --demo 2> "$work/serve.log" &
  server=$!
  for _ in $(seq 200); do grep -q "serving on" "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
  url="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)"
  [ -n "$url" ] || { echo "seek serve did not start:"; cat "$work/serve.log"; exit 1; }
}
stop() { kill "$server"; wait "$server" || true; server=""; }

# status and body of GET PATH with optional extra curl arguments
get() { curl -s -o "$work/body" -w '%{http_code}' "$@"; }
is_error_document() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert set(d)=={"error"} and isinstance(d["error"], str) and d["error"]' "$work/body" && echo yes || echo no; }

token="abs-token-$(date +%s)-x"
start SEEK_AUDIOBOOKSHELF_TOKEN="$token"
provider="$url/integrations/audiobookshelf"
echo "schemathesis against $provider with $spec ($examples examples)"
"$venv/bin/schemathesis" run "$spec" --url "$provider" -H "AUTHORIZATION: $token" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,ignored_auth,negative_data_rejection,positive_data_acceptance,missing_required_header \
    --max-examples "$examples" --request-timeout 20 --seed 1 > "$work/st.log" 2>&1 \
  && check "schemathesis: no failure" 0 0 || { tail -c 6000 "$work/st.log"; check "schemathesis: no failure" 0 1; }
grep -E "^(API Operations|  Selected|  Tested|Test cases|  [0-9]+ generated)|passed|failure" "$work/st.log" | cut -c1-200 || true

check "the token: 200" 200 "$(get -H "Authorization: $token" "$provider/search?query=The+Lord+of+the+Rings&author=Tolkien")"
check "the Lord of the Rings among the matches" yes "$(python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); m=d["matches"]
print("yes" if any("Lord of the Rings" in x["title"] and "Tolkien" in x.get("author","") for x in m) else "no")' "$work/body")"
check "no token: 401" 401 "$(get "$provider/search?query=x")"
check "no token: {\"error\": …}" yes "$(is_error_document)"
check "a wrong token: 401" 401 "$(get -H "Authorization: $token-wrong" "$provider/search?query=x")"
check "a wrong token: {\"error\": …}" yes "$(is_error_document)"
check "the token with a scheme is not the whole value: 401" 401 "$(get -H "Authorization: Bearer $token" "$provider/search?query=x")"
check "no query: 400" 400 "$(get -H "Authorization: $token" "$provider/search")"
check "no query: {\"error\": …}" yes "$(is_error_document)"
check "an empty query: no matches" 200 "$(get -H "Authorization: $token" "$provider/search?query=")"
check "an empty query: {\"matches\": []}" '{"matches":[]}' "$(tr -d '\n' < "$work/body")"
stop

start
provider="$url/integrations/audiobookshelf"
check "personal, loopback, no token set: open" 200 "$(get "$provider/search?query=The+Hobbit")"
stop

start SEEK_SECRET="0123456789abcdef0123456789abcdef-secret" SEEK_PUBLIC=1
provider="$url/integrations/audiobookshelf"
check "public, no token set: 404" 404 "$(get -H "Authorization: anything" "$provider/search?query=x")"
stop

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
