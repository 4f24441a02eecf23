#!/usr/bin/env bash
# The whole test suite: install, build, run every test, then the Windows cross build and its
# tests under wine (scripts/windows.sh), then fuzz each target.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --tests
bash scripts/build.sh
status=0
ctest --preset default -j"$(nproc)" || status=1
bash scripts/windows.sh || status=1
if [ -f scripts/fuzz.sh ]; then
  bash scripts/fuzz.sh "${HSPERFGUARD_FUZZ_SECONDS:-60}" || status=1
fi
exit "$status"
