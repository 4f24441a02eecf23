#!/usr/bin/env bash
# shellcheck disable=SC2317  # failed_tests, linux_tests and main_command are called through stage
# The whole test suite: install, run the README's main command (scripts/audit.sh), build,
# analyse the sources and scripts statically (scripts/lint.sh), run every test (g++ Release),
# (among them the fault sweep's CI tier, scripts/fault_sweep.py, which fails each system call
# the tool makes), run them again with openat2 and io_uring refused by a seccomp filter (the
# fallbacks, and the sweep of their system calls), mutate
# the lines of the latest change (scripts/mutate.py --diff), model-check the reaper's removal
# protocol (scripts/verify.sh), run the suite again under ASan + UBSan (clang) and TSan (g++),
# then the Windows cross build and its tests under wine (scripts/windows.sh), then fuzz each
# target. Each stage's wall time is printed as it ends and again in a table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
times=()
# stage NAME COMMAND...: runs one stage, records its time and whether it passed.
# Tests that failed, by stage, printed again at the very end: the end of a long log is what
# a reader (and a CI page that keeps only the tail) sees first.
failures=$(mktemp)
# And what each failed test printed (scripts/failure_details.sh), cut short, printed before them.
failure_details=$(mktemp)
trap 'rm -f "$failures" "$failure_details"' EXIT
export HSPERFGUARD_FAILURES=$failures HSPERFGUARD_FAILURE_DETAILS=$failure_details
# failed_tests CTEST-LOG: appends the names of the tests ctest said failed to $failures.
failed_tests() {
  grep -E '^[[:space:]]*[0-9]+ - .* \((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|Not Run)\)' "$1" \
    | sed "s/^[[:space:]]*/  $current_stage: /" >>"$failures" || true
}
stage() {
  local name=$1 started=$SECONDS rc=0
  shift
  current_stage=$name
  echo "==> stage: $name"
  "$@" || rc=$?
  stage_ended "$name" "$started" "$rc"
}
# stage_ended NAME STARTED RC [HOW]: records a stage's time and status, and prints them.
stage_ended() {
  local name=$1 started=$2 rc=$3 how=${4:-}
  times+=("$(printf '%-46s %5d s  %s' "$name" $((SECONDS - started)) "$([ "$rc" = 0 ] && echo ok || echo "FAILED ($rc)")")")
  echo "==> stage: $name: $((SECONDS - started)) s$how, exit $rc"
  [ "$rc" = 0 ] || status=1
  return 0
}
# stage_beside NAME COMMAND...: starts a stage in the background, at the lowest CPU priority,
# its output kept apart; stage_end NAME waits for it, then prints its output, time and status
# as stage does. For a stage that needs the CPU (static analysis) beside stages that mostly
# wait (the field's boots, timers and JVMs), and that touch nothing it reads.
declare -A beside=()
stage_beside() {
  local name=$1 out
  shift
  out=$(mktemp)
  echo "==> stage: $name (beside the next stages; its output at its end)"
  nice -n 19 "$@" >"$out" 2>&1 &
  beside[$name]="$!:$SECONDS:$out"
}
stage_end() {
  local name=$1 pid started out rc=0
  IFS=: read -r pid started out <<<"${beside[$name]}"
  wait "$pid" || rc=$?
  echo "==> stage: $name (output)"
  cat "$out"
  rm -f "$out"
  stage_ended "$name" "$started" "$rc" " (beside others)"
}
# linux_tests PRESET [COMMAND...] [:: CTEST-ARGUMENTS...]: the Linux suite of one preset, ctest
# run by COMMAND when one is given, with the arguments after "::". Run as root (CI is), no test
# may skip: a skipped test tests nothing, and each skip names what it lacked ("needs root", a
# program), which root on this machine has.
linux_tests() {
  local preset=$1 log rc=0 prefix=() extra=()
  shift
  while [ $# -gt 0 ] && [ "$1" != "::" ]; do prefix+=("$1"); shift; done
  [ $# -eq 0 ] || { shift; extra=("$@"); }
  log=$(mktemp)
  "${prefix[@]}" ctest --preset "$preset" -j"$(nproc)" "${extra[@]}" 2>&1 | tee "$log" || rc=1
  bash scripts/check_no_skips.sh "$log" || rc=1
  failed_tests "$log"
  bash scripts/failure_details.sh "build-$preset" "$current_stage"
  rm -f "$log"
  return "$rc"
}
# main_command: the README's main command as a user runs it (scripts/audit.sh: the audit
# preset's binary, then an audit of this machine), with warnings as errors. Its g++ -O2 is a
# build type no other stage compiles, and a warning only -O2 gives once broke a fresh machine's
# first build there. The build is made first on its own (a failed build also exits 1, the
# audit's "findings"), then the command itself, which finds the binary built; its audit must
# end with its verdict on this machine: 0 (clean) or 1 (findings); 2 or 3 (it could not run,
# or not complete) fail the stage.
main_command() {
  local rc=0
  local -x HSPERFGUARD_WERROR=ON  # for this stage's two commands only, not the later stages
  bash scripts/build.sh audit || return 1
  bash scripts/audit.sh || rc=$?
  echo "main command: exit $rc"
  [ "$rc" -le 1 ]
}
# The build matrix of CI: g++ Release runs the suite; clang runs it under ASan + UBSan, g++
# under TSan (scripts/sanitize.sh). RelWithDebInfo (the default preset) and Debug are
# `scripts/build.sh default|debug` then `ctest --preset default|debug`; the README's audit builds
# the binary alone (`scripts/build.sh audit`, no tests).
seccomp_excluded='^(DebianPackage\..*|RpmPackage\..*|PackageFloor\..*|OciImage\..*|HostileInput\.(FakeContainersSharingAHugePasswdCostOneParse|ManyFakeContainersCostOnePassOverProcNotOneEach))$'
stage "dependencies" bash scripts/deps.sh --tests
stage "main command (scripts/audit.sh, warnings as errors)" main_command
stage "build (g++, Release)" bash scripts/build.sh release
stage "tests (g++, Release)" linux_tests release
# The same build's suite again under a seccomp filter that refuses openat2 and io_uring with
# EPERM, as Docker's and containerd's default profiles do (tests/support/seccomp_refuse.cpp; the filter
# is inherited by every program a test starts). On this kernel both work, so this is where the
# fallbacks run: the O_NOFOLLOW walk beneath a root, an lstat before each open, one system call
# at a time instead of io_uring batches; the fault sweep (fault_sweep.*) fails each system call
# of those fallbacks in turn. Nothing is rebuilt. Left out, what makes no system
# call of the tool: the unit tier (pure code, and the scripts' tests tests_of.* and mutate.*)
# and the layer probes (the compiler); and what the filter does not reach: the packages' tests
# (dpkg, rpm, podman; what they run of the binary, every other test runs) and the CPU bounds of
# the passwd cache and of the pass over /proc (reads, which the filter does not change).
stage "tests under seccomp (no openat2, no io_uring)" \
  linux_tests release build-release/tests/seccomp_refuse --errno EPERM -- \
  :: -LE '^(unit|layers)$' -E "$seccomp_excluded"
# clang-tidy, cppcheck and shellcheck on the tree (scripts/lint.sh), from the compile database
# of the Release build (CMAKE_EXPORT_COMPILE_COMMANDS is on in CMakeLists.txt) and with its
# binary's bash completion; any finding fails the stage. clang-tidy and shellcheck read what
# the change since the last commit that passed CI (the mutants' base, below) can have changed
# their findings on: each translation unit whose source or any header it includes changed
# (the Release build's deps log), each changed script, every unit when the checks, the flags
# or lint.sh changed; cppcheck and the bash completion are checked whole. It runs beside the
# field stage and the model check, which wait more than they compute (debootstrap's
# downloads, boots, a timer's minute), and ends before the mutants change the sources it reads.
change_base=${HSPERFGUARD_MUTATE_BASE:-$(cat .ci/mutate-base)}
stage_beside "static analysis (clang-tidy, cppcheck, shellcheck)" \
  bash scripts/lint.sh --build build-release --changed "$change_base"
# The packaged units as a real systemd runs them: Debian 12 and 13 roots (debootstrap, cached
# in /var/cache/hsperfguard-field) booted with systemd-nspawn, the .deb of the Release build
# installed with apt, timers and services run beside JVMs of JDK 17 and 25, then purged.
stage "field: real systemd (Debian 12, 13)" bash tests/field/systemd_field.sh --build build-release
stage "model check (SPIN)" bash scripts/verify.sh
stage_end "static analysis (clang-tidy, cppcheck, shellcheck)"
# The plain operator mutants of scripts/mutate.py on the lines the latest change touched (every
# Linux source under src/), each rebuilt into the Release build above and run against the
# unit tier, then the tests scripts/tests_of.py maps its file to; a survivor not argued
# equivalent in scripts/mutate-equivalent.txt fails the stage, a mutant the budget leaves is
# listed as not tried. The change is from the commit in .ci/mutate-base (the one the last green
# CI ran on, moved forward when a change lands: a fresh clone cannot know it otherwise) to
# HEAD, unless HSPERFGUARD_MUTATE_BASE names the base (a CI that knows the commit it tested
# last). The
# budget (HSPERFGUARD_MUTATE_BUDGET seconds) and the rebuild of the clean tree after it keep
# the stage within 5 minutes on 2 cores. After the field stage; the clean tree is rebuilt after
# it, whose binary tests the sanitizer stages run.
stage "mutants of the change (scripts/mutate.py --diff)" \
  python3 scripts/mutate.py --build-dir build-release --diff "$change_base" \
  --budget "${HSPERFGUARD_MUTATE_BUDGET:-210}"
stage "ASan+UBSan (clang): build, tests" bash scripts/sanitize.sh asan
stage "TSan (g++): build, tests" bash scripts/sanitize.sh tsan
stage "Windows build and tests" bash scripts/windows.sh
if [ -f scripts/fuzz.sh ]; then
  stage "fuzzing" bash scripts/fuzz.sh "${HSPERFGUARD_FUZZ_SECONDS:-20}"
fi
if [ -s "$failure_details" ]; then
  echo "==> what the failed tests printed (the first 150 lines)"
  head -n 150 "$failure_details"
fi
if [ -s "$failures" ]; then
  echo "==> tests that failed"
  cat "$failures"
fi
echo "==> stage times"
printf '%s\n' "${times[@]}"
echo "==> total: $SECONDS s"
exit "$status"
