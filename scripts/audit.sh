#!/usr/bin/env bash
# The main job: install, build, and audit this machine with the default settings. Only what the
# audit needs is built: the hsperfguard binary alone (the "audit" preset of CMakePresets.json:
# Release at -O2, which compiles faster than -O3 or -O2 -g for the same code, and no tests,
# benches or fuzzers, in build-audit/), so that the first report does not wait for the test
# suite's compile; scripts/test.sh builds and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh audit
exec ./build-audit/hsperfguard audit "$@"
