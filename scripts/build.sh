#!/usr/bin/env bash
# Configures and builds one preset of CMakePresets.json: default (build/), or the one named
# (release, debug, clang, ...); further arguments go to `cmake --build` (`--target hsperfguard`).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" "$@" -- -j"$(nproc)"
