# shellcheck shell=bash
# The scratch host of the transcript tests: every tests/transcripts/*.t sources this first.
# scripts/transcripts.sh runs each .t as root in a private mount and pid namespace whose /tmp
# is an empty tmpfs, so what is made here is all the tool sees, the host's /tmp is never
# touched, and the pids a transcript shows are the ones chosen here (ns_last_pid): the output
# of a run is the same on every machine with OpenJDK 17 and the JDK 25 below.
set -o pipefail

if [ -z "${HSPERFGUARD_TRANSCRIPT_HOST:-}" ] || [ "$(stat -f -c %T /tmp)" != tmpfs ]; then
  echo "setup.sh: not on a scratch host: run the transcripts with scripts/transcripts.sh" >&2
  exit 1
fi
: "${HSPERFGUARD_BINARY:?the hsperfguard under test}"

# The transcripts read like a person's session: `hsperfguard ...` is the binary under test.
hsperfguard() { "$HSPERFGUARD_BINARY" "$@"; }

JAVA17=$(command -v java)
JAVA25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for tool in "$JAVA17" "$JAVA25" "$(command -v javac)" "$(command -v jq)"; do
  if [ ! -x "$tool" ]; then
    echo "setup.sh: missing ${tool:-a tool} (scripts/deps.sh --tests; the JDK 25 as for tests/field)" >&2
    exit 1
  fi
done

# A region as JDK 17 writes it (tests/data), copied for the files no live JVM maps.
SAMPLE=$TESTDIR/../data/jdk17-default.hsperf
OLD='3 days ago'
THREE_DAYS_MS=259200000

# region BEGIN_MS FILE: the sample region with its sun.rt.createVmBeginTime set to BEGIN_MS
# (milliseconds since the epoch): the ages and uptimes a transcript shows are then the same
# on every run, not the time since the sample was recorded.
region() {
  local offset=472 recorded=1795380149258  # where the sample keeps its createVmBeginTime
  if [ "$(od -An -t d8 -j $offset -N 8 "$SAMPLE" | tr -d ' ')" != $recorded ]; then
    echo "region: the sample region changed: update setup.sh" >&2
    return 1
  fi
  cp "$SAMPLE" "$2"
  local bytes='' i
  for i in 0 1 2 3 4 5 6 7; do bytes+=$(printf '\\x%02x' $((($1 >> (8 * i)) & 255))); done
  printf '%b' "$bytes" | dd of="$2" bs=1 seek=$offset conv=notrunc status=none
}

# start_ms PID: when process PID started, in milliseconds since the epoch, computed as the
# tool computes it (boot time plus the start in clock ticks of /proc/PID/stat).
start_ms() {
  local btime ticks hz
  btime=$(awk '$1 == "btime" { print $2 }' /proc/stat)
  ticks=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $20 }')
  hz=$(getconf CLK_TCK)
  echo $(((btime + ticks / hz) * 1000 + (ticks % hz) * 1000 / hz))
}

# at_pid PID COMMAND...: runs COMMAND in the background as process PID of this namespace,
# its standard input a FIFO that this shell holds open (the JVM ends when it is closed) and
# its output in /tmp/.out-PID. Fails if another process took that pid first.
at_pid() {
  local pid=$1
  shift
  mkfifo "/tmp/.in-$pid"
  echo $((pid - 1)) >/proc/sys/kernel/ns_last_pid
  # The child closes the FIFOs opened for the others: one held open there would keep them
  # running after stop_all.
  (
    for var in ${!fd_*}; do eval "exec {$var}>&-"; done
    exec "$@"
  ) <"/tmp/.in-$pid" >"/tmp/.out-$pid" 2>&1 &
  local started=$!
  eval "exec {fd_$pid}>/tmp/.in-$pid"
  if [ "$started" != "$pid" ]; then
    echo "at_pid: wanted pid $pid, got $started" >&2
    return 1
  fi
}

# start_jvm PID JAVA [USER]: a JVM of tests/java/IdleJvm.java (compiled once) as process PID,
# run by USER (root by default); returns when it printed "ready" (its backing file exists),
# waiting at most a minute (a JVM starts in seconds even on a loaded machine).
start_jvm() {
  local pid=$1 java=$2 user=${3:-root}
  if [ ! -d /tmp/.classes ]; then
    mkdir -m 0755 /tmp/.classes
    javac -J-XX:-UsePerfData --release 17 -d /tmp/.classes "$TESTDIR/../java/IdleJvm.java" || return 1
  fi
  local run=()
  [ "$user" = root ] || run=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups)
  at_pid "$pid" "${run[@]}" "$java" -XX:+UsePerfData -Xshare:auto -cp /tmp/.classes IdleJvm || return 1
  local _
  for _ in $(seq 1 600); do
    grep -q ready "/tmp/.out-$pid" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "start_jvm: pid $pid did not start:" >&2
  cat "/tmp/.out-$pid" >&2
  return 1
}

# stop_all: closes every FIFO at_pid opened and waits for the processes: a JVM that ends
# normally removes its own backing file.
stop_all() {
  local var
  for var in ${!fd_*}; do
    eval "exec {$var}>&-"
  done
  wait
}

# stale_file PATH [OWNER]: a region of a JVM that began three days ago, last written then.
stale_file() {
  region $(($(date +%s%3N) - THREE_DAYS_MS)) "$1"
  [ -z "${2:-}" ] || chown "$2" "$1"
  touch -h -d "$OLD" "$1"
}

# make_host: the scratch host most transcripts look at, made after their JVMs start (a
# starting JVM removes the stale files of its user's namespace). In /tmp:
#   hsperfdata_root/      0755: stale 90001 and 90002, 90003 of nobody (foreign), a FIFO
#                         90004, a symbolic link 90005 to /etc/passwd, notapid, and 500, of
#                         a JVM that began three days before the live `cat` of that pid
#   hsperfdata_daemon/    0777, daemon's: a hard-linked pair 90006 and 90007 of 0666
#   hsperfdata_nobody/    0700, nobody's: 90008, a truncated region
#   hsperfdata_nosuchuser/ of a user that does not exist, empty
#   .java_pid90009        a stale attach file
make_host() {
  local ns=/tmp/hsperfdata_root
  mkdir -p $ns && chmod 0755 $ns
  stale_file $ns/90001
  stale_file $ns/90002
  stale_file $ns/90003 nobody:nogroup
  mkfifo $ns/90004 && touch -d "$OLD" $ns/90004
  ln -s /etc/passwd $ns/90005
  printf 'junk' >$ns/notapid && touch -d "$OLD" $ns/notapid
  at_pid 500 cat
  # Of a JVM that began three days before `cat` did: the pid was reused.
  region $(($(start_ms 500) - THREE_DAYS_MS)) $ns/500 && touch -d "$OLD" $ns/500
  mkdir -m 0777 /tmp/hsperfdata_daemon && chmod 0777 /tmp/hsperfdata_daemon
  chown daemon:daemon /tmp/hsperfdata_daemon
  stale_file /tmp/hsperfdata_daemon/90006 daemon:daemon
  chmod 0666 /tmp/hsperfdata_daemon/90006
  ln /tmp/hsperfdata_daemon/90006 /tmp/hsperfdata_daemon/90007
  mkdir -p /tmp/hsperfdata_nobody && chmod 0700 /tmp/hsperfdata_nobody
  head -c 100 "$SAMPLE" >/tmp/hsperfdata_nobody/90008
  chown -R nobody:nogroup /tmp/hsperfdata_nobody
  touch -d "$OLD" /tmp/hsperfdata_nobody/90008
  mkdir -m 0755 /tmp/hsperfdata_nosuchuser
  : >/tmp/.java_pid90009 && touch -d "$OLD" /tmp/.java_pid90009
}
