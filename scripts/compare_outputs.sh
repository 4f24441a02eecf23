#!/usr/bin/env bash
# Runs two builds of hsperfguard on the same reference trees and compares what they print:
# the JSON of audit, reap --dry-run, ps, rules and inspect, and the text of audit, reap
# --dry-run, repair --dry-run and ps, timestamps, durations and ages aside. For a change that
# must not change behaviour (a restructuring): any difference is printed and the exit status
# is 1.
#
#   scripts/compare_outputs.sh OLD_BINARY NEW_BINARY
#
# As root, in a private mount and pid namespace with its own /tmp (a tmpfs): a live JVM (the
# test suite's IdleJvm, run by `java`), stale, foreign and pid-reused files, a FIFO, a
# symbolic link, hard-linked files, a namespace of 0777, another user's namespace, attach
# files, and 40 namespaces of generated stale files. Nothing outside that /tmp is written.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 OLD_BINARY NEW_BINARY" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
here=$(cd "$(dirname "$0")/.." && pwd)
if [[ $(id -u) -ne 0 ]]; then
  echo "$0: needs root (a private mount and pid namespace)" >&2
  exit 2
fi
out=$(mktemp -d "${TMPDIR_FOR_OUTPUTS:-/var/tmp}/compare-outputs.XXXXXX")
trap '[[ -n "${KEEP_OUTPUTS:-}" ]] || rm -rf "$out"' EXIT

inside() {
  set -euo pipefail
  mount -t tmpfs -o mode=1777 tmpfs /tmp
  local sample="$here/tests/data/jdk17-default.hsperf"
  # A live JVM of root, with its standard input held open by a FIFO (IdleJvm ends at EOF).
  mkfifo /tmp/.jvm-stdin
  java -XX:+UsePerfData "$here/tests/java/IdleJvm.java" </tmp/.jvm-stdin >/tmp/.jvm-out 2>&1 &
  local jvm=$!
  exec 9>/tmp/.jvm-stdin
  for _ in $(seq 1 200); do grep -q ready /tmp/.jvm-out 2>/dev/null && break; sleep 0.1; done
  local ns=/tmp/hsperfdata_root
  # Stale, a live non-JVM pid's (pid reuse), foreign (nobody's), special files.
  cp "$sample" "$ns/99990"; touch -d '3 days ago' "$ns/99990"
  sleep 1000 & local sleeper=$!
  cp "$sample" "$ns/$sleeper"; touch -d '3 days ago' "$ns/$sleeper"
  cp "$sample" "$ns/99991"; chown 65534:65534 "$ns/99991"; touch -d '3 days ago' "$ns/99991"
  mkfifo "$ns/99992"; touch -d '3 days ago' "$ns/99992"
  ln -s /etc/passwd "$ns/99993"
  printf 'junk' >"$ns/notapid"
  # A namespace of 0777 with a hard-linked pair of 0666, and another user's.
  mkdir -m 0777 /tmp/hsperfdata_daemon; chown 1:1 /tmp/hsperfdata_daemon
  cp "$sample" /tmp/hsperfdata_daemon/99994; chmod 0666 /tmp/hsperfdata_daemon/99994
  ln /tmp/hsperfdata_daemon/99994 /tmp/hsperfdata_daemon/99995
  chown 1:1 /tmp/hsperfdata_daemon/99994; touch -h -d '3 days ago' /tmp/hsperfdata_daemon/99994
  mkdir -m 0700 /tmp/hsperfdata_nobody; chown 65534:65534 /tmp/hsperfdata_nobody
  head -c 100 "$sample" >/tmp/hsperfdata_nobody/99996; chown 65534:65534 /tmp/hsperfdata_nobody/99996
  touch -d '3 days ago' /tmp/hsperfdata_nobody/99996
  mkdir -m 0755 /tmp/hsperfdata_nosuchuser
  # Attach files: a stale one and one of the live JVM's pid.
  : >/tmp/.java_pid99997; touch -d '3 days ago' /tmp/.java_pid99997
  : >/tmp/.attach_pid99998
  # Generated namespaces of stale files.
  for n in $(seq 1 40); do
    mkdir -m 0755 "/tmp/hsperfdata_gen$n"
    for f in $(seq 1 25); do head -c $((n * 7 + f)) "$sample" >"/tmp/hsperfdata_gen$n/$((50000 + n * 100 + f))"; done
    touch -d '3 days ago' "/tmp/hsperfdata_gen$n"/*
  done

  local b
  for b in old new; do
    local bin=${!b} d="$out/$b"
    mkdir -p "$d"
    local common=(--no-containers --tmpdir /tmp)
    "$bin" audit "${common[@]}" --format json >"$d/audit.json" 2>"$d/audit.err" || echo "exit $?" >>"$d/audit.err"
    "$bin" audit "${common[@]}" --verbose >"$d/audit.txt" 2>>"$d/audit.err" || echo "exit $?" >>"$d/audit.err"
    "$bin" audit "${common[@]}" --profile strict --format json >"$d/audit-strict.json" 2>>"$d/audit.err" || echo "exit $?" >>"$d/audit.err"
    "$bin" reap "${common[@]}" --dry-run --format json >"$d/reap.json" 2>"$d/reap.err" || echo "exit $?" >>"$d/reap.err"
    "$bin" reap "${common[@]}" --dry-run --min-age 0 >"$d/reap.txt" 2>>"$d/reap.err" || echo "exit $?" >>"$d/reap.err"
    "$bin" repair --tmpdir /tmp --dry-run >"$d/repair.txt" 2>"$d/repair.err" || echo "exit $?" >>"$d/repair.err"
    "$bin" ps --all --format json >"$d/ps.json" 2>"$d/ps.err" || echo "exit $?" >>"$d/ps.err"
    "$bin" ps --all >"$d/ps.txt" 2>>"$d/ps.err" || echo "exit $?" >>"$d/ps.err"
    "$bin" rules --format json >"$d/rules.json" 2>"$d/rules.err" || echo "exit $?" >>"$d/rules.err"
    "$bin" rules >"$d/rules.txt" 2>>"$d/rules.err" || echo "exit $?" >>"$d/rules.err"
    "$bin" inspect "$jvm" --format json >"$d/inspect.json" 2>"$d/inspect.err" || echo "exit $?" >>"$d/inspect.err"
    "$bin" create --tmpdir /tmp --user root >"$d/create.txt" 2>"$d/create.err" || echo "exit $?" >>"$d/create.err"
  done
  # Then what writes: a namespace and a region made in a temp dir of each build's own (named
  # c-X when compared), after both builds looked at the trees above.
  for b in old new; do
    local bin=${!b} d="$out/$b"
    mkdir -m 1777 "/tmp/c-$b"
    "$bin" create --tmpdir "/tmp/c-$b" --user daemon --pid 4242 --command 'Main arg' \
      >"$d/create-new.txt" 2>"$d/create-new.err" || echo "exit $?" >>"$d/create-new.err"
    "$bin" inspect "/tmp/c-$b/hsperfdata_daemon/4242" --format json >"$d/inspect-made.json" \
      2>"$d/inspect-made.err" || echo "exit $?" >>"$d/inspect-made.err"
    "$bin" inspect "/tmp/c-$b/hsperfdata_daemon/4242" >"$d/inspect-made.txt" 2>>"$d/inspect-made.err" || true
  done
  exec 9>&-
  kill "$sleeper" 2>/dev/null || true
  wait "$jvm" 2>/dev/null || true
}

export -f inside
export here old new out
unshare --mount --pid --fork --mount-proc --propagation private bash -c inside

# Timestamps, durations and ages vary between two runs: they are masked before comparing.
python3 - "$out" <<'PY'
import json, os, re, sys
out = sys.argv[1]
VARY = re.compile(r'(_ms|_at|^at|^started|^finished|^age|^uptime|duration|^generated|elapsed|^seconds)', re.I)
def mask(v, key=''):
    if isinstance(v, dict):
        # A counter that is not constant (inspect) changes as the JVM runs.
        moving = v.get('variability') not in (None, 'constant') or str(v.get('name', '')).startswith('sun.rt.createVm')
        return {k: ('*' if k == 'timings' or (moving and k == 'value')
                    or k in ('timings_ms', 'free_bytes', 'free_inodes')
                    or (VARY.search(k) and not isinstance(v[k], (dict, list))) else mask(v[k], k))
                for k in v}
    if isinstance(v, list):
        return [mask(x, key) for x in v]
    return v
TEXT_MASKS = [
    (re.compile(r'\b1\d{12}\b'), 'EPOCHMS'),
    (re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z'), 'TIME'),
    (re.compile(r'\b\d+(\.\d+)? ?(ms|s|min|h|d)\b'), 'DUR'),
    (re.compile(r'\b\d+(\.\d+)?(ms|s|m|h|d)( \d+(ms|s|m|h))*\b'), 'DUR'),
]
failed = False
names = sorted(os.listdir(os.path.join(out, 'old')))
for name in names:
    a = open(os.path.join(out, 'old', name), 'rb').read().decode('utf-8', 'replace').replace('/c-old', '/c-X')
    b = open(os.path.join(out, 'new', name), 'rb').read().decode('utf-8', 'replace').replace('/c-new', '/c-X')
    if name.endswith('.json'):
        try:
            a = json.dumps(mask(json.loads(a)), indent=1, sort_keys=False)
            b = json.dumps(mask(json.loads(b)), indent=1, sort_keys=False)
        except ValueError:
            pass
    else:
        for pattern, repl in TEXT_MASKS:
            a = pattern.sub(repl, a); b = pattern.sub(repl, b)
    lines = a.count('\n')
    if a == b:
        print(f'same      {name} ({lines} lines)')
    else:
        failed = True
        print(f'DIFFERENT {name}')
        import difflib
        for line in list(difflib.unified_diff(a.splitlines(), b.splitlines(), 'old/' + name, 'new/' + name, lineterm='', n=1))[:40]:
            print('  ' + line)
sys.exit(1 if failed else 0)
PY
