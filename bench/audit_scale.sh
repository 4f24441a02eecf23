#!/bin/sh
# Audit at scale: generates NAMESPACES x FILES backing files (real JDK 17 regions named after
# pids that do not exist, so every file is judged stale) and times
#   hsperfguard audit --tmpdir DIR --format json --output FILE
# against `find DIR -printf '%m %U %s\n'` on the same tree (wall time and peak RSS).
#
# usage: bench/audit_scale.sh BUILD_DIR TREE_DIR [NAMESPACES [FILES]]
#   BUILD_DIR  a build with the hsperfguard and bench_gen_tree targets built
#   TREE_DIR   where to generate the tree (removed first; a tmpfs such as /dev/shm/... keeps
#              the disk out of the measurement)
# Environment: REPORT (default: a temp file), RUNS (hyperfine runs, default 5).
set -eu

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR TREE_DIR [NAMESPACES [FILES]]" >&2
  exit 2
fi
build=$1
tree=$2
namespaces=${3:-100}
files=${4:-1000}
runs=${RUNS:-5}
report=${REPORT:-$(mktemp "${TMPDIR:-/tmp}/audit_scale.XXXXXX.json")}

hsperfguard=$build/hsperfguard
gen_tree=$build/bench/bench_gen_tree
for exe in "$hsperfguard" "$gen_tree"; do
  [ -x "$exe" ] || { echo "missing $exe (build it first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "tree: $namespaces namespaces x $files files in $tree"
rm -rf "$tree"
"$gen_tree" --out "$tree" --namespaces "$namespaces" --files "$files" --owners 0 >/dev/null

# One timed run of a command: prints "wall=<s> rss=<KB>" (GNU time).
measure() {
  /usr/bin/time -f "wall=%e rss=%M" "$@" 2>&1 >/dev/null | tail -n 1
}
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# Warm the page cache and dentries for both tools alike.
find "$tree" -printf '%m %U %s\n' >/dev/null

# audit exits 1 when it finds something (every file here is stale): that is not a failure.
# shellcheck disable=SC2016  # $0, $1, $2 are the inner sh's arguments, expanded there
audit=$(measure sh -c '"$0" audit --tmpdir "$1" --format json --output "$2" || [ $? -eq 1 ]' \
  "$hsperfguard" "$tree" "$report")
# shellcheck disable=SC2016  # as above
audit_stdout=$(measure sh -c '"$0" audit --tmpdir "$1" --format json >/dev/null || [ $? -eq 1 ]' \
  "$hsperfguard" "$tree")
find_run=$(measure find "$tree" -printf '%m %U %s\n')
audit_wall=$(field "$audit" wall)
audit_rss=$(field "$audit" rss)
stdout_wall=$(field "$audit_stdout" wall)
stdout_rss=$(field "$audit_stdout" rss)
find_wall=$(field "$find_run" wall)
find_rss=$(field "$find_run" rss)
size=$(wc -c <"$report")
total_files=$((namespaces * files))

echo "command: hsperfguard audit --tmpdir TREE --format json --output FILE (warm cache, one run each)"
echo "hsperfguard audit --output FILE: wall $audit_wall s, peak RSS $audit_rss KB, report $size bytes ($((size / total_files)) bytes a file)"
echo "hsperfguard audit >/dev/null:    wall $stdout_wall s, peak RSS $stdout_rss KB"
printf '%s\n' "find -printf '%m %U %s\\n':       wall $find_wall s, peak RSS $find_rss KB"
awk -v a="$audit_wall" -v f="$find_wall" \
  'BEGIN { if (f > 0) printf "ratio audit/find (wall): %.1f\n", a / f; else print "ratio audit/find: n/a (find took 0 s)" }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the CPUs)"

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 1 --runs "$runs" -i \
    -n "hsperfguard audit --output" "'$hsperfguard' audit --tmpdir '$tree' --format json --output '$report'" \
    -n "hsperfguard audit >/dev/null" "'$hsperfguard' audit --tmpdir '$tree' --format json >/dev/null" \
    -n "find -printf" "find '$tree' -printf '%m %U %s\\n' >/dev/null"
fi
[ -n "${REPORT:-}" ] || rm -f "$report"
