#!/usr/bin/env bash
# Times `hsperfguard reap` against `find DIR -type f -delete` and `systemd-tmpfiles --clean`
# on identical trees of stale hsperfdata files (bench_gen_tree: N namespaces x M files, real
# JDK 17 regions, owned round-robin by several users so that reap switches identities).
# Every run of every tool gets a freshly generated tree (hyperfine --prepare), old enough for
# all three tools' age limits (1 s). Prints the wall times and each tool's ratio to find.
#
#   bench/reap_bench.sh [--dir DIR] [--namespaces N] [--files M] [--runs R]
#                       [--owners UID,UID,...] [--dense] [--sync]
#
#   --dir DIR   where the trees are made (default: a new directory under /tmp; its file
#               system is what is measured: run it once on tmpfs, e.g. /dev/shm, and once on
#               the disk /tmp lives on)
#   --dense     write whole 32 KiB regions, as a JVM does (default: up to `used`, a hole after)
#   --sync      write the tree to disk before each timed run (a crash's stale files are on
#               disk, not only in the page cache); slow on large trees
#
# Needs: hyperfine, systemd-tmpfiles, python3, and the build (HSPERFGUARD_BUILD_DIR, default
# build/): hsperfguard and bench/bench_gen_tree. Run as root (the trees have several owners).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${HSPERFGUARD_BUILD_DIR:-build}
dir=""
namespaces=10
files=10000
runs=5
owners="65534,1,2,3"
gen_flags=()
sync_cmd=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --namespaces) namespaces=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --owners) owners=$2; shift 2 ;;
    --dense) gen_flags+=(--dense); shift ;;
    --sync) sync_cmd="sync -f \"\$tree\"; "; shift ;;
    *) echo "usage: $0 [--dir DIR] [--namespaces N] [--files M] [--runs R] [--owners LIST] [--dense] [--sync]" >&2; exit 2 ;;
  esac
done

hsperfguard=$(realpath "$build/hsperfguard")
gen=$(realpath "$build/bench/bench_gen_tree")
for tool in hyperfine systemd-tmpfiles python3; do
  command -v "$tool" >/dev/null || { echo "reap_bench: $tool is needed" >&2; exit 2; }
done
if [ ! -x "$hsperfguard" ] || [ ! -x "$gen" ]; then
  echo "reap_bench: build first ($build)" >&2
  exit 2
fi

if [ -z "$dir" ]; then
  dir=$(mktemp -d /tmp/hsperfguard-reap-bench.XXXXXX)
  cleanup_dir=1
else
  mkdir -p "$dir"
  dir=$(realpath "$dir")
  cleanup_dir=0
fi
tree="$dir/tree"
results="$dir/results"
mkdir -p "$results"
cleanup() {
  rm -rf "$tree"
  if [ "$cleanup_dir" = 1 ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT

# The same age limit for every tool: older than 1 s (ctime, mtime and atime all count).
cat >"$dir/tmpfiles.conf" <<EOF
e $tree/hsperfdata_* - - - 1s
EOF

prepare="rm -rf '$tree'; '$gen' --out '$tree' --namespaces $namespaces --files $files --owners $owners ${gen_flags[*]:-} >/dev/null; tree='$tree'; ${sync_cmd}sleep 2"

echo "machine: $(nproc) CPUs, $(uname -sr), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
echo "file system of $dir: $(stat -f -c %T "$dir"); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tree: $namespaces namespaces x $files stale files = $((namespaces * files)) files; $runs runs each"
echo

hyperfine --runs "$runs" --style basic --export-json "$results/hyperfine.json" \
  --prepare "$prepare" \
  --command-name "find -delete" "find '$tree' -type f -delete" \
  --command-name "hsperfguard reap" \
  "'$hsperfguard' reap --tmpdir '$tree' --min-age 1s --no-lock --format json --output '$results/report.json'" \
  --command-name "systemd-tmpfiles --clean" "systemd-tmpfiles --clean '$dir/tmpfiles.conf'"

python3 - "$results/hyperfine.json" "$results/report.json" <<'EOF'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
base = next(r for r in runs if r["command"] == "find -delete")
print()
print(f"{'tool':<26} {'mean s':>8} {'stddev':>8} {'min s':>8} {'max s':>8} {'vs find':>8}")
for r in runs:
    print(f"{r['command']:<26} {r['mean']:8.3f} {r['stddev'] or 0:8.3f} {r['min']:8.3f} "
          f"{r['max']:8.3f} {r['mean'] / base['mean']:7.2f}x")
try:
    report = json.load(open(sys.argv[2]))
    reap = report["reap"]
    print()
    print("last reap run:", reap["outcomes"], "phases (ms):", reap["timings_ms"])
except (OSError, ValueError, KeyError):
    pass
EOF
