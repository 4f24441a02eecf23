#!/usr/bin/env bash
# Configures and builds one preset of CMakePresets.json: default (build/), or the one named
# (release, debug, clang, ...); further arguments go to `cmake --build` (`--target hsperfguard`).
# HSPERFGUARD_WERROR=ON|OFF in the environment overrides the preset's choice (CI builds the
# audit preset, a user's first build without -Werror, with it).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-default}
shift || true
werror=()
if [ -n "${HSPERFGUARD_WERROR:-}" ]; then
  werror=("-DHSPERFGUARD_WERROR=$HSPERFGUARD_WERROR")
fi
cmake --preset "$preset" "${werror[@]}" >/dev/null
cmake --build --preset "$preset" "$@" -- -j"$(nproc)"
