#!/usr/bin/env bash
# How the cost grows with the junk: audit and reap on trees of 100,000 and 1,000,000 stale
# files (bench_gen_tree --namespaces 100 --files 1000 and 10000, every region 1 byte long, so
# every file is stale and every file has findings), each run once under GNU time, printing its
# wall time, its peak RSS and its JSON report's bytes per file, then each figure at the
# largest size against the smallest (a linear cost gives the ratio of the sizes, 10x), then
# bench/peers.py's table of the same build in the same run (the guards: reap / tmpfiles,
# start / true; on disk too with --disk).
#
#   bench/scale.sh [--build DIR] [--dir DIR] [--namespaces N] [--files M,M,...]
#                  [--peers-runs R] [--disk DIR] [--no-peers]
#
#   --build DIR    a Release build with the hsperfguard and bench targets (default build-release/)
#   --dir DIR      where the trees are made, one at a time (default: a new directory under
#                  /tmp); its file system is what is measured: a tmpfs, e.g. one mounted on /tmp
#                  in a private mount namespace (unshare --mount), keeps the disk out of it. A
#                  1,000,000-file tree and its audit report take about 3 GB there.
#   --files LIST   files per namespace, one run of each (default 1000,10000: 100,000 and
#                  1,000,000 files)
#   --peers-runs R rounds of bench/peers.py (default 3), on a tree of 100 x 1,000 in DIR
#   --disk DIR     also run bench/peers.py there with every tree written back (--sync): the
#                  on-disk guard, the reap below tmpfiles and find -delete
#   --no-peers     the scale rows only
#
# The reap is `reap --min-age 0 --no-lock --format json --output FILE` (every file removed but
# those whose pid a new process took since the tree was made: their count is printed), after
# `reap --dry-run` on the same tree. The audit is
# `audit --no-containers --format json --output FILE`. Run as root; the 1,000,000-file reap
# held 1.3 GB when this script was written: check free memory first.
set -euo pipefail
cd "$(dirname "$0")/.."

build="build-release"
dir=""
namespaces=100
files_list=1000,10000
peers_runs=3
disk=""
peers=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --namespaces) namespaces=$2; shift 2 ;;
    --files) files_list=$2; shift 2 ;;
    --peers-runs) peers_runs=$2; shift 2 ;;
    --disk) disk=$2; shift 2 ;;
    --no-peers) peers=0; shift ;;
    *) echo "usage: $0 [--build DIR] [--dir DIR] [--namespaces N] [--files M,M,...] [--peers-runs R] [--disk DIR] [--no-peers]" >&2
       exit 2 ;;
  esac
done

hsperfguard=$(realpath "$build/hsperfguard")
gen=$(realpath "$build/bench/bench_gen_tree")
for exe in "$hsperfguard" "$gen"; do
  [ -x "$exe" ] || { echo "scale: $exe is missing: build $build with -DHSPERFGUARD_BENCH=ON first" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "scale: needs /usr/bin/time (GNU time)" >&2; exit 2; }

if [ -z "$dir" ]; then
  dir=$(mktemp -d /tmp/hsperfguard-scale.XXXXXX)
  made_dir=1
else
  mkdir -p "$dir"
  dir=$(realpath "$dir")
  made_dir=0
fi
tree=$dir/tree
report=$dir/report.json
cleanup() {
  rm -rf "$tree" "$report" "$dir/region" "$dir/time"
  if [ "$made_dir" = 1 ]; then rm -rf "$dir"; fi
}
trap cleanup EXIT
# A 1-byte region: too short for a prologue, so every file is judged (and reported) as a
# truncated backing file besides being stale.
printf 'x' >"$dir/region"

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) CPUs, $(uname -sr)," \
     "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM; binary: $("$hsperfguard" --version | head -n 1)"
echo "trees in $dir ($(stat -f -c %T "$dir")): $namespaces namespaces x M files, 1-byte regions; one run each"
echo

# measure NAME FILES COMMAND...: runs COMMAND once under GNU time (exit 0 or 1, a finished
# audit or reap with findings) and prints its row; the report's bytes per file when one was
# written. Keeps the figures in wall_<KEY>_<FILES>, rss_<KEY>_<FILES>, bytes_<KEY>_<FILES>
# (KEY: NAME with _ for -).
measure() {
  local name=$1 files=$2 rc=0 key=${1//-/_}
  shift 2
  rm -f "$report"
  /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null || rc=$?
  if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
    echo "scale: $name on $files files exited $rc" >&2
    exit 1
  fi
  local wall rss bytes=""
  # GNU time puts "Command exited with non-zero status 1" before its line when the command
  # exits 1: its own line is the last.
  read -r wall rss < <(tail -n 1 "$dir/time")
  [ -f "$report" ] && bytes=$(( $(stat -c %s "$report") / files ))
  printf -v "wall_${key}_${files}" '%s' "$wall"
  printf -v "rss_${key}_${files}" '%s' "$rss"
  printf -v "bytes_${key}_${files}" '%s' "$bytes"
  printf '  %-10s %9d files  %8.2f s  %7.1f MB peak RSS%s\n' "$name" "$files" "$wall" \
    "$(awk -v k="$rss" 'BEGIN { print k * 1024 / 1e6 }')" \
    "${bytes:+  $bytes bytes a file (JSON report)}"
  rm -f "$report"
}

totals=()
IFS=, read -r -a per_namespace <<<"$files_list"
for m in "${per_namespace[@]}"; do
  total=$((namespaces * m))
  totals+=("$total")
  rm -rf "$tree"
  "$gen" --out "$tree" --namespaces "$namespaces" --files "$m" --region "$dir/region" >/dev/null
  sleep 1  # a moment of age: --min-age 0 asks for none, the ctime is the generation's
  measure audit "$total" "$hsperfguard" audit --tmpdir "$tree" --no-containers --format json --output "$report"
  measure dry-run "$total" "$hsperfguard" reap --dry-run --tmpdir "$tree" --min-age 0 --no-lock --format json \
    --output "$report"
  measure reap "$total" "$hsperfguard" reap --tmpdir "$tree" --min-age 0 --no-lock --format json --output "$report"
  # A file the reap keeps is one whose pid a new process took after the tree was made (the
  # reaper checks liveness again): said, not a failure.
  left=$(find "$tree" -type f | wc -l)
  [ "$left" = 0 ] || echo "  (the reap kept $left of $total files: their pids are live again)"
  rm -rf "$tree"
done

# The table: every size side by side, then the largest against the smallest.
first=${totals[0]}
last=${totals[${#totals[@]}-1]}
echo
header="| run |"
rule="| --- |"
for total in "${totals[@]}"; do
  header+=" $total files |"
  rule+=" --- |"
done
header+=" $last / $first |"
rule+=" --- |"
echo "$header"
echo "$rule"
for name in reap dry-run audit; do
  line="| $name |"
  key=${name//-/_}
  for total in "${totals[@]}"; do
    w=wall_${key}_$total r=rss_${key}_$total b=bytes_${key}_$total
    line+=" $(awk -v w="${!w}" -v r="${!r}" -v b="${!b}" 'BEGIN {
      printf "%.2f s, %.1f MB", w, r * 1024 / 1e6; if (b != "") printf ", %d bytes a file", b }') |"
  done
  wf=wall_${key}_$first wl=wall_${key}_$last rf=rss_${key}_$first rl=rss_${key}_$last
  line+=" $(awk -v a="${!wf}" -v b="${!wl}" -v c="${!rf}" -v d="${!rl}" 'BEGIN {
    if (a > 0) printf "time %.1fx", b / a; else printf "time n/a"; printf ", RSS %.1fx", d / c }') |"
  echo "$line"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other processes share the CPUs)"

if [ "$peers" = 1 ]; then
  echo
  echo "bench/peers.py --dir $dir/peers --runs $peers_runs (the guards, the same build):"
  python3 bench/peers.py --build "$build" --dir "$dir/peers" --runs "$peers_runs"
  rm -rf "$dir/peers"
  if [ -n "$disk" ]; then
    echo
    echo "bench/peers.py --dir $disk --runs $peers_runs --sync (on disk, written back):"
    python3 bench/peers.py --build "$build" --dir "$disk" --runs "$peers_runs" --sync
  fi
fi
