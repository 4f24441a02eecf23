#!/usr/bin/env bash
# Fuzzes each parser for SECONDS seconds (default 60) with libFuzzer, ASan and UBSan.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# Builds the "fuzz" preset (clang 14, build-fuzz/), then runs the targets one after another
# on a scratch copy of their corpus (new inputs never land in fuzz/corpus/) with their
# dictionary. Fails on any crash, leak, timeout or out-of-memory; the failing input and the
# log are kept in build-fuzz/fuzz-findings/<target>/. Prints one line per target:
#   fuzz: <target> runs=<execs> exec/s=<rate> seconds=<n> crashes=<n>
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [SECONDS]  (a positive whole number, default 60)" >&2
  exit 2
fi

targets=(pid_name perfdata procfs acl_xattr)
build_dir=build-fuzz

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "${targets[@]/#/fuzz_}"

# Leaks are failures; UBSan stops at the first report (the code is also built with
# -fno-sanitize-recover). A caller's own options come last and win.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/hsperfguard-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

status=0
for target in "${targets[@]}"; do
  corpus="$scratch/$target"
  findings="$build_dir/fuzz-findings/$target"
  log="$findings/fuzz.log"
  mkdir -p "$corpus"
  cp -R "fuzz/corpus/$target/." "$corpus/"
  rm -rf "$findings"
  mkdir -p "$findings"

  started=$(date +%s)
  rc=0
  "$build_dir/fuzz/fuzz_$target" "$corpus" \
    -dict="fuzz/$target.dict" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
    -print_final_stats=1 -artifact_prefix="$findings/" >"$log" 2>&1 || rc=$?
  elapsed=$(($(date +%s) - started))

  # libFuzzer ends a clean run with "Done N runs in S second(s)" and the final stat:: lines.
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
  if [ -n "$done_line" ]; then
    runs=$(awk '{print $2}' <<<"$done_line")
    elapsed=$(awk '{print $5}' <<<"$done_line")
  fi
  if [ -z "$rate" ] && [ -n "$runs" ] && [ "$elapsed" -gt 0 ]; then
    rate=$((runs / elapsed))
  fi
  crashes=$(find "$findings" -maxdepth 1 -type f \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)

  echo "fuzz: $target runs=${runs:-0} exec/s=${rate:-0} seconds=$elapsed crashes=$crashes"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ] || [ -z "$done_line" ]; then
    status=1
    {
      echo "fuzz: $target FAILED (exit status $rc); last lines of $log:"
      tail -n 60 "$log"
      echo "fuzz: findings kept in $findings/; reproduce with"
      echo "  $build_dir/fuzz/fuzz_$target $findings/<file>"
      echo "  or: fuzz_replay_$target <file> from a normal build"
    } >&2
  fi
done
exit "$status"
