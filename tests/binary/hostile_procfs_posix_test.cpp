// Hostile input through /proc and beside the namespaces: what an unprivileged user's processes
// and files can make a root run read (issue 35, cases 4 and 5). Each case runs the binary as
// root in a private mount namespace with its own /tmp, /run and /dev (hostile_support.hpp),
// with the attacker's processes run as nobody; the scripts print key=value lines.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

bool can_spam() { return test::have_program("setpriv") && test::have_program("python3"); }

// `spam N NAME FIRST...` starts, as nobody, a process that maps each FIRST file (a path, or
// PID for /tmp/t/hsperfdata_nobody/<its pid>) one page, then one page of a file with a
// 3,900-byte path N times (offsets alternate, so the kernel merges none): N = 65,000 makes its
// maps 258 MB, and the FIRST files come after all of it (mappings are placed downwards, maps
// list them upwards). Its pid goes to $SPAM_PID; spam_wait waits until every one is ready.
const char* kSpammer = R"SH(
mkdir -p /tmp/s && chown 65534:65534 /tmp/s
cat > /tmp/s/spam.py <<'EOF'
import ctypes, os, sys, time
n, name, first = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
def map_page(fd, offset):
    if libc.mmap(None, 4096, 1, 1, fd, offset) in (None, ctypes.c_void_p(-1).value):
        sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
for f in first:
    if f == "PID": f = "/tmp/t/hsperfdata_nobody/%d" % os.getpid()
    os.makedirs(os.path.dirname(f), exist_ok=True)
    with open(f, "wb") as out: out.write(b"\0" * 32768)
    fd = os.open(f, os.O_RDONLY); map_page(fd, 0); os.close(fd)
d = "/tmp/s/" + name
while len(d) < 3700: d += "/" + "d" * 200
os.makedirs(d, exist_ok=True)
path = d + "/" + "f" * (3900 - len(d) - 1)
with open(path, "wb") as out: out.write(b"\0" * 12288)
fd = os.open(path, os.O_RDONLY)
for i in range(n): map_page(fd, (i % 2) * 8192)
open("/tmp/s/" + name + ".ready", "w").close()
time.sleep(300)
EOF
SPAMMERS=""
spam() { n=$1; name=$2; shift 2
  setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 /tmp/s/spam.py $n $name "$@" &
  SPAM_PID=$!; SPAMMERS="$SPAMMERS $SPAM_PID"; }
spam_wait() { i=0; while [ $i -lt 600 ]; do
    ready=yes; for f in "$@"; do [ -e /tmp/s/$f.ready ] || ready=no; done
    [ $ready = yes ] && break; sleep 0.1; i=$((i+1)); done
  echo spammers_ready=$ready; }
trap 'kill $SPAMMERS 2>/dev/null' EXIT
# Seconds since T0, to 0.01 s.
now() { date +%s.%N; }
since() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(now)"; }
)SH";

// ---- case 4: huge /proc/<pid>/maps ---------------------------------------------------------

// A process maps one page of a file with a 3,900-byte path 40,000 times: its maps are 159 MB,
// which audit, ps and the reaper's liveness gathering read whole into memory (and twice in
// the audit: once looking for JVMs, once for the file named after its pid). The maps are now
// read 64 KiB at a time, parsed as they come, and at most 16 MiB of them: memory is a line's.
// What lies beyond the cap is not known, and a truncated read proves nothing: the file it
// maps after the cut (named after its pid, so liveness reads it) is never judged unmapped
// (pid-reused), and ps says it cannot tell whether the process maps libjvm.so (a file of
// that name is mapped beyond the cut too).
TEST(HostileInput, ProcessWithHugeMapsCostsBoundedMemory) {
  SKIP_UNLESS_ROOT();
  if (!can_spam()) GTEST_SKIP() << "needs setpriv, python3";
  const Outcome o = run_case(std::string(kSpammer) + R"SH(
spam 40000 a /tmp/s/lib/libjvm.so PID; S=$SPAM_PID
spam_wait a
echo maps_mb=$(( $(wc -c < /proc/$S/maps) / 1048576 ))
peak_rss $H audit --tmpdir /tmp/t --no-containers --format json --output /tmp/a.json | sed 's/^rss_kb=/audit_rss_kb=/'
peak_rss sh -c "$H ps --no-containers --format json > /tmp/ps.json" | sed 's/^rss_kb=/ps_rss_kb=/'
peak_rss sh -c "$H reap --tmpdir /tmp/t --no-containers --dry-run --min-age 0 --format json > /tmp/r.json" | sed 's/^rss_kb=/reap_rss_kb=/'
python3 - "$S" <<'EOF'
import json, sys
pid = sys.argv[1]
a = json.load(open("/tmp/a.json"))
f = [f for n in a["namespaces"] for f in n["files"] if f["name"] == pid][0]
print("verdict=%s" % f["verdict"]["verdict"])
cand = f["verdict"]["evidence"]["candidates"][0]
print("maps_cut=%s" % cand.get("maps_cut"))
print("audit_says_partial=%s" % any(e["path"] == "/proc/%s/maps" % pid and "not known" in e["message"] for e in a["errors"]))
p = json.load(open("/tmp/ps.json"))
print("ps_says_partial=%s" % any(e["path"] == "/proc/%s/maps" % pid and "libjvm.so is not known" in e["message"] for e in p["errors"]))
r = json.load(open("/tmp/r.json"))
print("reap_action=%s" % [i["action"] for i in r["plan"] if i["name"] == pid][0])
EOF
)SH");
  ASSERT_EQ(o.at("spammers_ready"), "yes") << o.result.err;
  ASSERT_GE(std::stol(o.at("maps_mb")), 150) << "the attack needs maps far beyond the cap";
  EXPECT_LT(std::stol(o.at("audit_rss_kb")), 40 * 1024) << "peak RSS of the audit";
  EXPECT_LT(std::stol(o.at("ps_rss_kb")), 40 * 1024) << "peak RSS of ps";
  EXPECT_LT(std::stol(o.at("reap_rss_kb")), 40 * 1024) << "peak RSS of reap --dry-run";
  // Read only in part, its maps prove nothing: never pid-reused, never reaped.
  EXPECT_EQ(o.at("verdict"), "unknown") << o.result.err;
  EXPECT_EQ(o.at("maps_cut"), "True");
  EXPECT_EQ(o.at("audit_says_partial"), "True");
  EXPECT_EQ(o.at("ps_says_partial"), "True");
  EXPECT_EQ(o.at("reap_action"), "keep");
}

// Six such processes of 258 MB of maps each: --max-runtime 1s ran 20 s, and SIGTERM at 1 s
// was honoured 14 s later, since the deadline and stop signals were looked at only between
// processes. They are now also looked at before every 64 KiB of maps read. (Read up to the
// cap, the six cost about a second in all here: the deadline and the signal come well before
// that, at 200 ms and 100 ms, so that a fast run cannot end first. The 100 ms count from when
// the tool has taken SIGTERM over (SigCgt in its status): under ASan, a start slower than
// 100 ms once met the signal's default action, exit 143.)
TEST(HostileInput, ProcessesWithHugeMapsCannotHoldOffMaxRuntimeOrSigterm) {
  SKIP_UNLESS_ROOT();
  if (!can_spam()) GTEST_SKIP() << "needs setpriv, python3";
  const Outcome o = run_case(std::string(kSpammer) + R"SH(
for k in 1 2 3 4 5 6; do spam 65000 p$k; done
spam_wait p1 p2 p3 p4 p5 p6
T0=$(now)
timeout -s KILL 15 $H audit --tmpdir /tmp/t --no-containers --format json --max-runtime 200ms > /tmp/d.json 2>/dev/null
echo deadline_rc=$? deadline_s=$(since $T0)
python3 -c 'import json; d = json.load(open("/tmp/d.json")); print("stopped=%s" % d["stopped"])'
$H audit --tmpdir /tmp/t --no-containers --format json > /dev/null 2>&1 & A=$!
i=0; until [ $(( 0x$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/$A/status 2>/dev/null || echo 0) & 0x4000 )) -ne 0 ] || [ $i -ge 100 ]; do sleep 0.01; i=$((i+1)); done
sleep 0.1
T0=$(now); kill -TERM $A
i=0; while [ -d /proc/$A ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
echo term_s=$(since $T0)
[ -d /proc/$A ] && kill -KILL $A
wait $A; echo term_rc=$?
)SH");
  ASSERT_EQ(o.at("spammers_ready"), "yes") << o.result.err;
  EXPECT_EQ(o.at("deadline_rc"), "3");
  EXPECT_LT(std::stod(o.at("deadline_s")), 2.5) << "--max-runtime 200ms";
  EXPECT_EQ(o.at("stopped"), "deadline");
  EXPECT_LT(std::stod(o.at("term_s")), 1.0) << "from SIGTERM to exit";
  EXPECT_EQ(o.at("term_rc"), "3");
}

// ---- case 5: attach files beside the namespaces --------------------------------------------

// `attach F S` makes, as nobody, F empty files /tmp/t/.attach_pid_K (not a pid: never removed)
// and S named after pids that are not alive (the S before the last pid handed out, which the
// kernel hands out again only after going round all of pid_max), in $STALE_LIST, and one for
// a live process of nobody's ($LIVE).
const char* kAttachFiles = R"SH(
chmod 1777 /tmp/t
attach() { python3 - "$1" "$2" <<'PY' > /tmp/attach.names
import os, sys
foreign, stale = int(sys.argv[1]), int(sys.argv[2])
for k in range(foreign): print(".attach_pid_%d" % k)
pid_max = int(open("/proc/sys/kernel/pid_max").read())
pid = int(open("/proc/sys/kernel/ns_last_pid").read())
made = 0
while made < stale:
    pid = pid - 1 if pid > 301 else pid_max - 1
    if not os.path.exists("/proc/%d" % pid):
        print(".attach_pid%d" % pid); made += 1
PY
  grep -v '^.attach_pid_' /tmp/attach.names > /tmp/stale.names
  (cd /tmp/t && setpriv --reuid=65534 --regid=65534 --clear-groups xargs touch < /tmp/attach.names)
  setpriv --reuid=65534 --regid=65534 --clear-groups sleep 300 & LIVE=$!
  trap 'kill $LIVE 2>/dev/null' EXIT
  setpriv --reuid=65534 --regid=65534 --clear-groups touch /tmp/t/.attach_pid$LIVE
  echo attach_files=$(ls -A /tmp/t | grep -c '^.attach_pid'); }
stale_left() { (cd /tmp/t && cat /tmp/stale.names | while read n; do [ -e "$n" ] && echo; done | wc -l); }
)SH";

// Any user can make any number of .attach_pid files in /tmp: 300,000 cost the audit 956 MB
// (every one held, and the report's attach list built whole as a document) and reap --dry-run
// 382 MB. They are now observed after the namespaces a part of 4,096 at a time: the audit
// judges, counts and writes each part and lets it go (the report still lists every one); the
// reaper plans each as it comes and keeps at most 4,096 it would remove and 4,096 others,
// counting the rest: each run removes up to 4,096 of them, the next run the next ones, until
// none is left, and never the live process's.
TEST(HostileInput, ManyAttachFilesCostBoundedMemory) {
  SKIP_UNLESS_ROOT();
  if (!can_spam()) GTEST_SKIP() << "needs setpriv, python3";
  const Outcome o = run_case(std::string(kAttachFiles) + R"SH(
attach 50000 10000
peak_rss $H audit --tmpdir /tmp/t --no-containers --format json --output /tmp/a.json | sed 's/^rss_kb=/audit_rss_kb=/'
peak_rss sh -c "$H reap --tmpdir /tmp/t --no-containers --dry-run --min-age 0 --format json > /tmp/r.json" | sed 's/^rss_kb=/reap_rss_kb=/'
python3 - <<'PY'
import json
a = json.load(open("/tmp/a.json"))
print("listed=%d" % len(a["attach"]))
r = json.load(open("/tmp/r.json"))
att = r["reap"]["roots"][0].get("attach_files", {})
print("judged=%s deferred=%s unlisted=%s" % (att.get("judged"), att.get("deferred"), att.get("unlisted")))
items = [i for i in r["plan"] if i["subject"] == "attach-file"]
print("planned_removals=%d planned_others=%d" % (sum(1 for i in items if i["action"] == "remove"),
                                                  sum(1 for i in items if i["action"] != "remove")))
PY
runs=0
while [ $runs -lt 10 ] && [ $(stale_left) -gt 0 ]; do
  $H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --quiet; runs=$((runs+1))
done
echo runs=$runs stale_left=$(stale_left) foreign_left=$(ls -A /tmp/t | grep -c '^.attach_pid_') live_left=$([ -e /tmp/t/.attach_pid$LIVE ] && echo yes || echo no)
)SH");
  ASSERT_EQ(o.at("attach_files"), "60001") << o.result.err;
  EXPECT_LT(std::stol(o.at("audit_rss_kb")), 40 * 1024) << "peak RSS of the audit";
  EXPECT_LT(std::stol(o.at("reap_rss_kb")), 40 * 1024) << "peak RSS of reap --dry-run";
  EXPECT_EQ(o.at("listed"), "60001") << "the audit's report lists every attach file";
  EXPECT_EQ(o.at("judged"), "60001");
  EXPECT_EQ(o.at("planned_removals"), "4096");
  EXPECT_EQ(o.at("deferred"), "5904") << "10,000 stale, 4,096 planned, the rest left for later runs";
  EXPECT_EQ(o.at("planned_others"), "4096");
  EXPECT_EQ(o.at("unlisted"), "45905") << "50,000 not pids and the live one, 4,096 listed";
  EXPECT_EQ(o.at("runs"), "3") << "10,000 stale ones, 4,096 a run";
  EXPECT_EQ(o.at("stale_left"), "0");
  EXPECT_EQ(o.at("foreign_left"), "50000");
  EXPECT_EQ(o.at("live_left"), "yes");
}

// The same files hold off --max-runtime: 300,000 took the audit 11 s with --max-runtime 1s.
// The deadline is now looked at before each part of 4,096 attach files, as between namespaces.
TEST(HostileInput, ManyAttachFilesCannotHoldOffMaxRuntime) {
  SKIP_UNLESS_ROOT();
  if (!can_spam()) GTEST_SKIP() << "needs setpriv, python3";
  const Outcome o = run_case(std::string(kSpammer) + kAttachFiles + R"SH(
attach 200000 0
T0=$(now)
timeout -s KILL 20 $H audit --tmpdir /tmp/t --no-containers --format json --max-runtime 1s > /tmp/d.json 2>/dev/null
echo audit_rc=$? audit_s=$(since $T0)
T0=$(now)
timeout -s KILL 20 $H reap --tmpdir /tmp/t --no-containers --dry-run --format json --max-runtime 1s > /dev/null 2>&1
echo reap_rc=$? reap_s=$(since $T0)
python3 - <<'PY'
import json
d = json.load(open("/tmp/d.json"))
print("stopped=%s complete=%s" % (d["stopped"], d["complete"]))
print("said=%s" % any("attach files" in e["message"] and "stopped (deadline)" in e["message"] for e in d["errors"]))
PY
)SH");
  ASSERT_EQ(o.at("attach_files"), "200001") << o.result.err;
  EXPECT_EQ(o.at("audit_rc"), "3");
  EXPECT_LT(std::stod(o.at("audit_s")), 2.0) << "audit --max-runtime 1s";
  EXPECT_EQ(o.at("stopped"), "deadline");
  EXPECT_EQ(o.at("complete"), "False");
  EXPECT_EQ(o.at("said"), "True") << "the report says where it stopped";
  EXPECT_LT(std::stod(o.at("reap_s")), 2.0) << "reap --dry-run --max-runtime 1s";
}

// ---- a file called libjvm.so, read and not run (issue 38: a false invisible-JVM alert) ------

// Any process that mapped a file whose name ends in /libjvm.so was taken for a JVM: a scanner
// or a backup reading the JDK through mmap, or any user mapping a file she names so, showed in
// ps as a JVM invisible to jps and raised the audit's invisible-JVM findings (and the alert
// on them). A JVM runs libjvm's code: only an executable mapping of it makes one. Here nobody
// maps the JDK's own libjvm.so read-only (a reader), and a copy of it executable (what a
// program that embeds a JVM does): the reader is no JVM, the runner still is one.
TEST(HostileInput, AProcessThatOnlyReadsALibjvmIsNoJvm) {
  SKIP_UNLESS_ROOT();
  if (!can_spam() || !test::have_program("java")) GTEST_SKIP() << "needs setpriv, python3, java";
  const Outcome o = run_case(R"SH(
LIBJVM=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")/lib/server/libjvm.so
[ -f "$LIBJVM" ] || { echo "no libjvm.so beside java" >&2; exit 99; }
mkdir -p /tmp/s && cp "$LIBJVM" /tmp/s/libjvm.so && chown -R 65534:65534 /tmp/s
cat > /tmp/s/map.py <<'EOF'
import ctypes, os, sys, time
path, prot, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
fd = os.open(path, os.O_RDONLY)
if libc.mmap(None, 4096, prot, 2, fd, 0) in (None, ctypes.c_void_p(-1).value):
    sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
open(ready, "w").close()
time.sleep(120)
EOF
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
$NOBODY /usr/bin/python3 /tmp/s/map.py "$LIBJVM" 1 /tmp/s/reader.ready & READER=$!
$NOBODY /usr/bin/python3 /tmp/s/map.py /tmp/s/libjvm.so 5 /tmp/s/runner.ready & RUNNER=$!
trap 'kill $READER $RUNNER 2>/dev/null' EXIT
i=0; while [ $i -lt 100 ] && ! [ -e /tmp/s/reader.ready -a -e /tmp/s/runner.ready ]; do sleep 0.1; i=$((i+1)); done
echo reader_maps=$(grep -c 'r--p.*libjvm.so$' /proc/$READER/maps) runner_maps=$(grep -c 'r-xp.*libjvm.so$' /proc/$RUNNER/maps)
$H ps --no-containers --format json > /tmp/ps.json
$H audit --tmpdir /tmp --no-containers --format json --output /tmp/a.json; echo audit_rc=$?
python3 - $READER $RUNNER <<'PY'
import json, sys
reader, runner = sys.argv[1], sys.argv[2]
jvms = [str(j.get("host_pid")) for j in json.load(open("/tmp/ps.json"))["jvms"]]
print("ps_reader=%s ps_runner=%s" % (reader in jvms, runner in jvms))
d = json.load(open("/tmp/a.json"))
findings = [f for n in d["namespaces"] for f in n["findings"]] + [f for r in d["roots"] for f in r["findings"]]
about = lambda pid: sum(1 for f in findings if pid in json.dumps(f))
print("audit_reader_findings=%d audit_runner_findings=%d" % (about(reader), about(runner)))
PY
)SH");
  ASSERT_EQ(o.at("reader_maps"), "1") << o.result.err;
  ASSERT_EQ(o.at("runner_maps"), "1") << o.result.err;
  EXPECT_EQ(o.at("ps_reader"), "False") << "a process reading libjvm.so is no JVM" << o.result.err;
  EXPECT_EQ(o.at("ps_runner"), "True") << "one running it is (the test sees what it must)";
  EXPECT_EQ(o.at("audit_reader_findings"), "0") << "no invisible-JVM finding for the reader";
  EXPECT_NE(o.at("audit_runner_findings"), "0") << "the runner is an invisible JVM of nobody";
}

}  // namespace
}  // namespace hsperfguard
