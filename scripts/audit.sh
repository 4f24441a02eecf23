#!/usr/bin/env bash
# The main job: install, build, and audit this machine with the default settings.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
exec ./build/hsperfguard audit "$@"
