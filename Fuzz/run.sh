#!/usr/bin/env bash
# Builds Seek's libFuzzer targets and fuzzes each in turn; exits non-zero if any crashed, leaked, timed
# out or ran out of memory, keeping the input that did it under Fuzz/artifacts/<target>/.
#
#   bash Fuzz/run.sh [seconds-per-target] [target…]     (default 60 seconds, every target)
#
# FUZZ_RUNS=N also stops each target after N executions (whichever comes first). Seeds: the recorded
# answers in ../shared/fixtures (written behind each target's selector byte by corpus.py) and Seeds/,
# copied into a temporary corpus per target that is removed afterwards. Needs python3 for corpus.py.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-60}"
shift || true
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [seconds-per-target] [target…]" >&2; exit 2 ;; esac
fixtures="${SEEK_FIXTURES:-$here/../../shared/fixtures}"
scratch="$here/.build-fuzz"
artifacts="$here/artifacts"

# name, -max_len, per-input leak check. The provider targets run async code whose tasks end just after
# the input does (Deadline.race's timers), so libFuzzer would re-run most inputs under LeakSanitizer and
# slow them tenfold; their leaks are still caught by LeakSanitizer when the process exits.
all_targets=(
  "FuzzJSON 65536 1"
  "FuzzOpenLibrary 65536 0"
  "FuzzGiphy 65536 0"
  "FuzzAladin 65536 0"
  "FuzzGoogleBooks 65536 0"
  "FuzzCrossref 65536 0"
  "FuzzDeclared 65536 0"
  "FuzzCursor 16384 1"
  "FuzzRetryAfter 256 1"
  "FuzzISBN 4096 1"
  "FuzzVisitorCookie 4096 1"
  "FuzzForwardedFor 4096 1"
)

build_flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DSEEK_FUZZ_BUILD
  --package-path "$here" --scratch-path "$scratch")

echo "== building the fuzz targets (swift build ${build_flags[*]})"
build_start=$(date +%s)
if ! swift build "${build_flags[@]}"; then
  echo "error: the fuzz build failed" >&2
  exit 1
fi
bin="$(swift build "${build_flags[@]}" --show-bin-path)"
echo "== built in $(($(date +%s) - build_start)) s; binaries in $bin"
if [ ! -d "$fixtures" ]; then
  echo "note: $fixtures is absent: the body targets start from their hand-written seeds only"
fi

# ASan's LeakSanitizer runs when each target exits; a leak makes the exit status non-zero.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"

selected=("$@")
failed=()
summary=()
details=()
work="$(mktemp -d "${TMPDIR:-/tmp}/seek-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

for entry in "${all_targets[@]}"; do
  read -r name max_len leaks <<<"$entry"
  if [ ${#selected[@]} -gt 0 ] && [[ ! " ${selected[*]} " == *" $name "* ]]; then continue; fi
  corpus="$work/$name"
  mkdir -p "$corpus" "$artifacts/$name"
  seeds=$(python3 "$here/corpus.py" "$name" "$corpus" "$fixtures" "$here/Seeds") || {
    echo "error: corpus.py failed for $name" >&2
    failed+=("$name (no corpus)")
    continue
  }
  flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
    -print_final_stats=1 -detect_leaks="$leaks" -artifact_prefix="$artifacts/$name/")
  if [ -n "${FUZZ_RUNS:-}" ]; then flags+=(-runs="$FUZZ_RUNS"); fi
  case "$name" in FuzzJSON | FuzzOpenLibrary | FuzzGiphy | FuzzAladin | FuzzDeclared | FuzzGoogleBooks | FuzzCrossref) flags+=(-dict="$here/json.dict") ;; esac
  log="$artifacts/$name.log"
  before="$(ls -1 "$artifacts/$name")"
  echo "== $name: ${seconds}s, $seeds seeds, -max_len=$max_len (log: $log)"
  start=$(date +%s)
  "$bin/$name" "${flags[@]}" "$corpus" </dev/null >"$log" 2>&1
  status=$?
  elapsed=$(($(date +%s) - start))
  runs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log" | tail -1)
  speed=$(awk '/^stat::average_exec_per_sec:/ {print $2}' "$log" | tail -1)
  rss=$(awk '/^stat::peak_rss_mb:/ {print $2}' "$log" | tail -1)
  line="$name: ${runs:-?} executions, ${speed:-?} exec/s, ${elapsed}s, peak RSS ${rss:-?} MB"
  new="$(comm -13 <(echo "$before") <(ls -1 "$artifacts/$name"))"
  if [ "$status" -ne 0 ] || [ -n "$new" ]; then
    line="$line — FAILED (exit $status)"
    failed+=("$name")
    # What went wrong, kept for the summary too: a CI log is often read from its end only.
    why="$(grep -E "^(==[0-9]+==ERROR|SUMMARY|Fatal error|fuzz invariant failed|ALARM|==[0-9]+== ERROR: libFuzzer|    #[0-9] )" "$log" | head -8)"
    for file in $new; do
      why="$why"$'\n'"   kept the input: $artifacts/$name/$file"$'\n'"   reproduce: $bin/$name $artifacts/$name/$file"
      # The input itself, so that a finding on a machine whose files are gone can still be replayed.
      why="$why"$'\n'"   input (base64): $(head -c 3000 "$artifacts/$name/$file" | base64 -w0)"
    done
    [ -n "$new" ] || why="$why"$'\n'"$(tail -15 "$log")"
    echo "$why"
    details+=("== $name failed:"$'\n'"$why")
  fi
  echo "$line"
  summary+=("$line")
done

echo "== summary"
for line in "${summary[@]}"; do echo "$line"; done
if [ ${#failed[@]} -gt 0 ]; then
  for detail in "${details[@]}"; do echo "$detail"; done
  echo "FAILED: ${failed[*]}"
  echo "fuzz: $((${#summary[@]} - ${#failed[@]})) passed, ${#failed[@]} failed"
  exit 1
fi
echo "all fuzz targets ran without a crash, leak, timeout or OOM"
echo "fuzz: ${#summary[@]} passed, 0 failed"
