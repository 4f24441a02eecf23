#!/usr/bin/env bash
# Runs the transcript tests (tests/transcripts/*.t): sessions of hsperfguard commands with
# their exact output, replayed by cram on a scratch host. A change of wording fails them
# with a diff; --update then writes what the binary prints now into the .t files, so the
# change is reviewed as a diff of those files.
#
#   scripts/transcripts.sh [--update] [--binary PATH] [FILE.t...]
#
# The binary is --binary, else $HSPERFGUARD_BINARY (ctest sets it). Without files: every
# .t. Each file runs alone, as root, in a private mount and pid namespace with an empty
# tmpfs on /tmp (tests/transcripts/setup.sh builds the host in it). A file cram skips or
# finds empty fails: on a machine set up by scripts/deps.sh --tests nothing is missing.
# --update accepts every change (cram -i -y), marks what varies between runs (times, ages,
# uptimes, inode numbers: the table in mask below) as a regular expression, then runs the
# files again: a second run that still differs names output that varies and is not in the
# table.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
update=
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --update) update=1 ;;
    --binary) HSPERFGUARD_BINARY=${2:?--binary needs a path}; shift ;;
    --binary=*) HSPERFGUARD_BINARY=${1#--binary=} ;;
    -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
    *) files+=("$(realpath "$1")") ;;
  esac
  shift
done
if [ "$(id -u)" != 0 ]; then
  # 77: ctest's skip (tests/CMakeLists.txt), which scripts/check_no_skips.sh refuses as root.
  echo "$(basename "$0"): needs root (a private mount and pid namespace)" >&2
  exit 77
fi
if [ -z "${HSPERFGUARD_BINARY:-}" ]; then
  echo "$(basename "$0"): which hsperfguard? --binary PATH or HSPERFGUARD_BINARY" >&2
  exit 2
fi
HSPERFGUARD_BINARY=$(realpath "$HSPERFGUARD_BINARY")
cram=$(command -v cram3 || command -v cram || true)
if [ -z "$cram" ]; then
  echo "$(basename "$0"): cram is not installed (scripts/deps.sh --tests)" >&2
  exit 2
fi
[ ${#files[@]} -gt 0 ] || files=("$here"/tests/transcripts/*.t)
# Named relative to the tree: --update has cram run patch(1), which refuses absolute names.
cd "$here"
for i in "${!files[@]}"; do files[i]=$(realpath --relative-to="$here" "${files[i]}"); done
export HSPERFGUARD_BINARY

# run_one FILE [CRAM-OPTION...]: cram on FILE in a namespace of its own; fails on a skip.
run_one() {
  local file=$1 log rc=0
  shift
  if ! grep -q '^  \$ ' "$file"; then
    echo "$(basename "$0"): $file runs no command: that is a failure" >&2
    return 1
  fi
  log=$(mktemp)
  # The options cram reads from the environment and .cramrc are not ours: none apply.
  # The empty /tmp hides whatever was under the host's: a checkout or a binary there (a CI
  # job's clone in /tmp) is bound back at its own path from the old /tmp, held open on fd 9
  # (not canonicalized: mount would resolve /proc/self/fd/9 to the name /tmp, the new one).
  # shellcheck disable=SC2016  # the inner shell expands them
  HSPERFGUARD_TRANSCRIPT_HOST=1 CRAM='' CRAMRC=/dev/null \
    unshare --mount --pid --fork --mount-proc --propagation private \
    bash -c 'exec 9</tmp && mount -t tmpfs -o mode=1777 tmpfs /tmp || exit 1
             for keep in "$0" "$(dirname "$HSPERFGUARD_BINARY")"; do
               case $keep in
                 /tmp/*) mkdir -p "$keep" && mount --no-canonicalize --bind "/proc/self/fd/9/${keep#/tmp/}" "$keep" || exit 1 ;;
               esac
             done
             exec 9<&- "$@"' "$here" \
    "$cram" --shell=bash --verbose "$@" "$file" >"$log" 2>&1 || rc=$?
  cat "$log"
  if grep -qE '^# Ran [0-9]+ tests, [1-9][0-9]* skipped' "$log"; then
    echo "$(basename "$0"): $(basename "$file") was skipped or is empty: that is a failure" >&2
    rc=1
  fi
  rm -f "$log"
  return "$rc"
}

# mask FILE: marks what varies from run to run in the output lines of FILE as a regular
# expression (cram's "(re)"), whatever the wording around it: the table below is the whole
# list, each entry as narrow as the value it stands for. A line already annotated is left as
# it is, so a mask written by hand survives an update.
mask() {
  python3 - "$1" <<'PY'
import re, sys
MASKS = [
    # When something happened (inspect's "started:").
    (r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z', lambda m: r'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z'),
    # How long ago a file changed (reap's --min-age: ctime cannot be set back).
    (r'(?<=changed )\d+(\.\d+)?(?= s ago)', lambda m: r'[0-9.]+'),
    # A live JVM's uptime in ps's table, and the padding after it.
    (r'(?<= live )( *)\d+s( +)', lambda m: m.group(1) + r'[0-9]+s +'),
    # The begin time of a region made by setup.sh (three days before the run).
    (r'(?<="vm_begin_time_ms":)\d+', lambda m: r'[0-9]+'),
    (r'(?<= vm_begin_time_ms: )\d+$', lambda m: r'[0-9]+'),
    # Device and inode numbers of the scratch tmpfs.
    (r'(?<="dev":)\d+,"ino":\d+', lambda m: r'[0-9]+,"ino":[0-9]+'),
    (r'(?<= dev: )\d+$', lambda m: r'[0-9]+'),
    (r'(?<= ino: )\d+$', lambda m: r'[0-9]+'),
    # The compiler and platform of the build (--version).
    (r'(?<=^  hsperfguard )([0-9.]+) \(.*\)$', lambda m: escape(m.group(1)) + r' \(.*\)'),
]
def escape(text):
    # Only what a regular expression gives a meaning to: the rest stays readable.
    return re.sub(r'([\\.^$*+?{}\[\]|()])', r'\\\1', text)
path = sys.argv[1]
lines = open(path, encoding='utf-8', errors='surrogateescape').read().split('\n')
for i, line in enumerate(lines):
    if not line.startswith('  ') or line.startswith(('  $ ', '  > ')) \
            or re.search(r' \((re|glob|esc)\)$', line):
        continue
    spans = []
    for pattern, to_regex in MASKS:
        for m in re.finditer(pattern, line):
            spans.append((m.start(), m.end(), to_regex(m)))
    if not spans:
        continue
    spans.sort()
    out, at = '', 0
    for start, end, regex in spans:
        if start < at:
            continue
        out += escape(line[at:start]) + regex
        at = end
    # The indent stays as it is: cram reads a line without it as a comment.
    lines[i] = '  ' + (out + escape(line[at:]))[2:] + ' (re)'
open(path, 'w', encoding='utf-8', errors='surrogateescape').write('\n'.join(lines))
PY
}

status=0
for file in "${files[@]}"; do
  if [ -n "$update" ]; then
    run_one "$file" --interactive --yes >/dev/null || true
    rm -f "$file.err" "$file.orig" "$file.rej"
    mask "$file"
    if ! run_one "$file"; then
      echo "$(basename "$0"): $(basename "$file") still differs after --update: the lines above vary between runs" >&2
      status=1
    fi
  else
    run_one "$file" || status=1
  fi
done
exit "$status"
