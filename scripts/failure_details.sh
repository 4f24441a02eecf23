#!/usr/bin/env bash
# What each failed test of the last ctest run in a build directory printed, cut short:
#   bash scripts/failure_details.sh BUILD-DIR LABEL
# appends to the file $HSPERFGUARD_FAILURE_DETAILS (does nothing when it is unset), for every
# test that did not pass in BUILD-DIR/Testing/Temporary/LastTest.log: its name, then the lines
# from its first GoogleTest failure to the test's end (or, with none, its output's last lines),
# at most 40.
# scripts/test.sh prints them near the end of its log, because a CI page that keeps only the
# log's tail would otherwise keep a failed test's name and lose why it failed.
set -euo pipefail
build_dir=${1:?usage: scripts/failure_details.sh BUILD-DIR LABEL}
label=${2:?usage: scripts/failure_details.sh BUILD-DIR LABEL}
[ -n "${HSPERFGUARD_FAILURE_DETAILS:-}" ] || exit 0
log=$build_dir/Testing/Temporary/LastTest.log
[ -f "$log" ] || exit 0
awk -v label="$label" '
  /^[0-9]+\/[0-9]+ Test: / { name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); next }
  /^Output:$/ { getline; inside = 1; n = 0; first = 0; next }
  inside && /^<end of output>$/ { inside = 0; done = 1; next }
  inside { lines[++n] = $0; if (!first && ($0 ~ /: Failure$/ || $0 ~ /^\[  FAILED  \]/ || $0 ~ /Timeout|Killed|Sanitizer/)) first = n; next }
  done && /^Test / && !/^Test time/ {
    if ($0 !~ /^Test Pass(ed\.|[ ]Reason:)/) {
      print "--- " label ": " name " (" $0 ")"
      start = first ? first : (n > 40 ? n - 39 : 1)
      for (i = start; i <= n && i < start + 40; ++i) {
        print "    " substr(lines[i], 1, 300)
        if (lines[i] ~ /^\[  FAILED  \] .*\([0-9]+ ms\)$/) break
      }
    }
    done = 0
  }
' "$log" >>"$HSPERFGUARD_FAILURE_DETAILS"
