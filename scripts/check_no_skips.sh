#!/usr/bin/env bash
# Fails if a ctest log (its output, given as the only argument) lists a skipped test and this
# runs as root. Every skip in the suite names what it lacked (root, a program, a kernel
# feature), and a run as root on a machine set up by scripts/deps.sh lacks none of them: a
# skipped test there tests nothing and would pass unseen. Used by test.sh and sanitize.sh.
set -euo pipefail
log=${1:?usage: scripts/check_no_skips.sh CTEST_LOG}
if [ "$(id -u)" = 0 ] && grep -q "(Skipped)" "$log"; then
  echo "$(basename "$0"): tests were skipped in a run as root:" >&2
  grep "(Skipped)" "$log" >&2
  exit 1
fi
