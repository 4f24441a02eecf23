#!/usr/bin/env bash
# The main job: install, build, and audit this machine with the default settings. Only what the
# audit needs is built: the hsperfguard binary alone (the "audit" preset of CMakePresets.json:
# Release at -O2, which compiles faster than -O3 or -O2 -g for the same code, and no tests,
# benches or fuzzers), so that the first report does not wait for the test suite's compile;
# scripts/test.sh builds and runs the tests. The binary is built in build-release/, the release
# preset's directory, with its compiler flags: where the two presets' flags agree (CI builds
# this one with warnings as errors, as the release preset does), the test suite's build that
# follows compiles only the tests, not the binary's sources a second time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh audit
exec ./build-release/hsperfguard audit "$@"
