#!/usr/bin/env bash
# Times `hsperfguard ps` against its floor (bench_ps_floor: the calls of ps's pass and no more)
# and against `jps -l -J-XX:-UsePerfData` with 10 live JVMs: 4 on the host (as nobody), 6 in 3
# containers (each: its own mount and pid namespace, a tmpfs on /tmp, 2 JVMs, one of them
# pid 1). The commands alternate run by run (bench_start_time); the last line is
# "ps/floor <ratio>" (bench/peers.py --ps reads it). Run as root after the build
# (-DHSPERFGUARD_BENCH=ON):
#
#   bench/ps_bench.sh            (HSPERFGUARD_BUILD_DIR selects the build, default build/;
#                                 SETTLE_SECONDS the pause once every JVM is up, default 10)
#
# Needs: java, javac, jps, python3, unshare, setpriv.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${HSPERFGUARD_BUILD_DIR:-build}/hsperfguard")
floor=$(realpath "${HSPERFGUARD_BUILD_DIR:-build}/bench/bench_ps_floor")
start_time=$(realpath "${HSPERFGUARD_BUILD_DIR:-build}/bench/bench_start_time")
work=$(mktemp -d /tmp/hsperfguard-ps-bench.XXXXXX)
classes="$work/classes"
mkdir -p "$classes"
javac -d "$classes" tests/java/IdleJvm.java
chmod -R a+rX "$work"
opts=(-Xmx32m -XX:+UseSerialGC -Xshare:auto -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1)
fifo="$work/stdin.fifo"
mkfifo "$fifo"
exec 9<>"$fifo"  # the JVMs wait on stdin; closing it (or the kill below) ends them
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for i in 1 2 3 4; do
  setpriv --reuid=nobody --regid=nogroup --clear-groups \
    java "${opts[@]}" -cp "$classes" IdleJvm "host-$i" <&9 >/dev/null 2>&1 &
  pids+=($!)
done
for c in 1 2 3; do
  unshare --mount --pid --fork --mount-proc --kill-child sh -c \
    "cd '$classes' && mount -t tmpfs -o mode=1777 tmpfs /tmp && mkdir /tmp/.c && cp IdleJvm.class /tmp/.c/ && exec 3<&0; java ${opts[*]} -cp /tmp/.c IdleJvm c$c-a <&3 & exec java ${opts[*]} -cp /tmp/.c IdleJvm c$c-b" \
    <&9 >/dev/null 2>&1 &
  pids+=($!)
done
live=0
for _ in $(seq 1 120); do
  live=$("$bin" ps --format json 2>/dev/null | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin)["jvms"] if r["state"]=="live" and (r["main"] or "").startswith("IdleJvm")))')
  [ "$live" -ge 10 ] && break
  sleep 1
done
# JVMs that just became ready still compile and collect on both CPUs: let them settle, so
# that ps and jps are timed on an idle machine, not against the JVMs' own startup.
sleep "${SETTLE_SECONDS:-10}"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "live IdleJvm rows in ps: $live"
"$bin" ps --format text
echo "rows: ps=$("$bin" ps --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jvms"]))')" \
  "jps=$(jps -l -J-XX:-UsePerfData | grep -vc 'jdk.jcmd' || true)"
echo "floor rows: $("$floor" | grep -c IdleJvm) IdleJvm of $("$floor" | wc -l)"
"$start_time" --runs 30 --warmup 3 "$(command -v jps) -l -J-XX:-UsePerfData" "$bin ps --format text" "$floor"
out=$("$start_time" --runs 200 --warmup 5 "$bin ps --format json" "$floor")
echo "$out" | grep -v '^ratio'
echo "ps/floor $(echo "$out" | sed -n 's/^ratio 0 //p')"
