#!/usr/bin/env bash
# The whole test suite: install, build, run every test, then the Windows cross build and its
# tests under wine (scripts/windows.sh), then fuzz each target. Each stage's wall time is
# printed as it ends and again in a table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
times=()
# stage NAME COMMAND...: runs one stage, records its time and whether it passed.
stage() {
  local name=$1 started=$SECONDS rc=0
  shift
  echo "==> stage: $name"
  "$@" || rc=$?
  times+=("$(printf '%-28s %5d s  %s' "$name" $((SECONDS - started)) "$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")")")
  echo "==> stage: $name: $((SECONDS - started)) s, exit $rc"
  [ "$rc" = 0 ] || status=1
  return 0
}
# The Linux suite. Run as root (CI is), no test may skip: a skipped test tests nothing, and
# each skip names what it lacked ("needs root", a program), which root on this machine has.
linux_tests() {
  local log rc=0
  log=$(mktemp)
  ctest --preset default -j"$(nproc)" 2>&1 | tee "$log" || rc=1
  if [ "$(id -u)" = 0 ] && grep -q "(Skipped)" "$log"; then
    echo "test.sh: tests were skipped in a run as root:"
    grep "(Skipped)" "$log"
    rc=1
  fi
  rm -f "$log"
  return "$rc"
}
stage "dependencies" bash scripts/deps.sh --tests
stage "build (g++, RelWithDebInfo)" bash scripts/build.sh
stage "tests (Linux)" linux_tests
# The suite with clang, in Release and in Debug is `scripts/build.sh clang|release|debug`, then
# `ctest --preset clang|release|debug`: a full build with the tests takes about 11 minutes on
# two cores, more than CI can add today.
stage "Windows build and tests" bash scripts/windows.sh
if [ -f scripts/fuzz.sh ]; then
  stage "fuzzing" bash scripts/fuzz.sh "${HSPERFGUARD_FUZZ_SECONDS:-60}"
fi
echo "==> stage times"
printf '%s\n' "${times[@]}"
echo "==> total: $SECONDS s"
exit "$status"
