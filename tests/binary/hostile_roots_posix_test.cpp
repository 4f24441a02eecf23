// Hostile input from fake containers: any user can make user and mount namespaces that a root
// run scans as containers (their /tmp, their etc/passwd). An outside review made ten of them
// bind-mount one 54 MB passwd over their etc/passwd, each with a namespace in its own tmpfs
// /tmp: every container cost a parse of that file (about 1.1 s of root CPU), `reap
// --max-runtime 8s` stopped in observation with exit 3, and another user's stale file in the
// host's /tmp was never removed.
//
// Each case runs as root in a private mount namespace with its own /tmp, /run and /dev (the
// harness of hostile_support.hpp), and here also in a pid namespace of its own with its own
// /proc: the root run's container scan then sees the case's fake containers and nothing else
// (not another test's, and not this host's real /tmp, which a scan from a private mount
// namespace would find as a container and a reap would act on).
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

// Runs `body` in a pid namespace of its own (its own /proc), after making `fakes` fake
// containers of nobody (user and mount namespaces) that bind-mount one 60 MB passwd (of lines
// `passwd_line`, N the line's number) over their etc/passwd, each with hsperfdata_ghost in its
// own tmpfs /tmp; then a later container of nobody (a higher pid: the scan reaches it after the
// fake ones) with the file of a pid that has exited in its own hsperfdata_nobody ($LATE_FILE,
// seen from the host); and a stale file of daemon in the host's /tmp ($HOST_STALE). The body
// has $H, prints key=value lines, and its helper `cpu COMMAND...` prints cpu_s= (user + system
// seconds) and rss_kb= of the command.
std::string with_fake_containers(int fakes, const std::string& passwd_line, const std::string& body) {
  return R"SH(
cat > /tmp/inner.sh <<'INNER'
H=/proc/$$/fd/9
# nobody's own files (written here, then given to nobody, who could have written them).
mkdir /tmp/fake
python3 -c '
import sys
with open("/tmp/fake/passwd", "w") as f:
    n = 0; i = 0
    while n < 60 * 1024 * 1024:
        line = sys.argv[1].replace("N", "%07d" % i) + "\n"
        f.write(line); n += len(line); i += 1' "$PASSWD_LINE"
cat > /tmp/fake/fake.sh <<'EOF'
mount --bind /tmp/fake/passwd /etc/passwd || exit 1
mount -t tmpfs none /tmp || exit 1
mkdir /tmp/hsperfdata_ghost && : > /tmp/ready
exec sleep 300
EOF
cat > /tmp/fake/late.sh <<'EOF'
mount -t tmpfs none /tmp || exit 1
mkdir /tmp/hsperfdata_nobody && : > /tmp/hsperfdata_nobody/$1 && : > /tmp/ready
exec sleep 300
EOF
chown -R nobody /tmp/fake
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done' EXIT
for k in $(seq $FAKES); do
  setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm sh /tmp/fake/fake.sh & PIDS="$PIDS $!"
done
sleep 0 & wait $!; GONE=$!
setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm sh /tmp/fake/late.sh $GONE & LATE=$!
PIDS="$PIDS $LATE"
ready=0
for p in $PIDS; do
  i=0; while [ $i -lt 600 ] && ! [ -e /proc/$p/root/tmp/ready ]; do sleep 0.1; i=$((i+1)); done
  [ -e /proc/$p/root/tmp/ready ] && ready=$((ready+1))
done
echo containers_ready=$ready
LATE_FILE=/proc/$LATE/root/tmp/hsperfdata_nobody/$GONE
mkdir /tmp/hsperfdata_daemon && chown daemon /tmp/hsperfdata_daemon
sleep 0 & wait $!; HOST_STALE=/tmp/hsperfdata_daemon/$!
: > $HOST_STALE && chown daemon $HOST_STALE
left() { [ -e "$1" ] && echo yes || echo no; }
cpu() { python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("cpu_s=%.2f rss_kb=%d" % (r.ru_utime + r.ru_stime, r.ru_maxrss))
sys.exit(rc)' "$@"; }
)SH" + body + R"SH(
INNER
FAKES=)SH" + std::to_string(fakes) + " PASSWD_LINE='" + passwd_line + R"SH(' unshare --pid --fork --mount-proc sh /tmp/inner.sh
)SH";
}

// Twenty-four fake containers share one 60 MB passwd of 1.2 million lines (below the two
// million accounts any passwd may index; about 0.5 s of CPU to parse), then a container with
// a stale file of its own comes last. Before: the
// audit and the reap spent --max-runtime in the fake containers' passwd (parsed once for
// each): exit 3, the host's stale file of daemon never removed, the last container never
// looked at. Now the host's temp dir is done first whatever the containers cost; with a
// budget too small for the passwd (150 ms) the containers cut off at their share are named and
// the run says how many it did not reach; with 8 s the passwd is parsed once across the
// containers' shares, the ones it cut off get a second turn, and the run completes, the last
// container reaped too.
TEST(HostileInput, FakeContainersSharingAHugePasswdCannotStopTheHostsReapOrHideLaterContainers) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("setpriv") || !test::have_program("python3")) GTEST_SKIP() << "needs setpriv, python3";
  const Outcome o = run_case(with_fake_containers(24, "uN:x:1N:1:a user of the fake container:/:", R"SH(
$H audit --max-runtime 150ms --format json --output /tmp/a.json 2> /tmp/a.err; echo audit_rc=$?
$H reap --max-runtime 8s --min-age 0 --format json --output /tmp/r.json 2> /tmp/r.err; echo reap_rc=$?
echo host_stale_left=$(left $HOST_STALE) late_file_left=$(left $LATE_FILE)
python3 -c '
import json, re, sys
host_file, late_root = sys.argv[1], sys.argv[2]
a = json.load(open("/tmp/a.json"))
roots = a["roots"]
print("audit_complete=%s audit_stopped=%s" % (a["complete"], a["stopped"]))
print("audit_host_kind=%s audit_host_stopped=%s" % (roots[0]["kind"], roots[0].get("stopped", "absent")))
files = {f["path"]: f["verdict"]["verdict"] for ns in a["namespaces"] for f in ns["files"]}
print("audit_host_file=%s" % files.get(host_file, "absent"))
cut = sum(1 for r in roots[1:] if r.get("stopped") == "deadline")
whole = sum(1 for r in roots[1:] if "stopped" in r and r["stopped"] is None)
said = [int(m.group(1)) for e in roots[0]["errors"] for m in [re.search(r"(\d+) of 26 temp dirs not looked at", e["message"])] if m]
print("audit_cut=%d audit_containers_accounted=%d" % (cut, cut + whole + sum(said)))
r = json.load(open("/tmp/r.json"))
roots = r["reap"]["roots"]
print("reap_complete=%s reap_roots=%d" % (r["complete"], len(roots)))
print("reap_host_kind=%s reap_host_stopped=%s" % (roots[0]["kind"], roots[0].get("stopped", "absent")))
print("reap_stopped=%d" % sum(1 for x in roots if x.get("stopped", "absent") is not None))
print("reap_late_root=%d" % sum(1 for x in roots if x["root"] == late_root))
outcomes = {x["path"]: x["outcome"] for x in r["actions"]}
print("reap_host_outcome=%s" % outcomes.get(host_file, "absent"))
' $HOST_STALE /proc/$LATE/root
)SH"));
  ASSERT_EQ(o.at("containers_ready"), "25") << o.result.err;
  // The audit with too little time for the passwd: the host's temp dir done first and whole,
  // the containers cut off at their share named, the others said not reached.
  EXPECT_EQ(o.at("audit_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("audit_complete"), "False");
  EXPECT_EQ(o.at("audit_stopped"), "deadline");
  EXPECT_EQ(o.at("audit_host_kind"), "host");
  EXPECT_EQ(o.at("audit_host_stopped"), "None");
  EXPECT_EQ(o.at("audit_host_file"), "stale");
  EXPECT_NE(o.at("audit_cut"), "0") << "the containers that paid for the passwd are named";
  EXPECT_EQ(o.at("audit_containers_accounted"), "25") << "each container cut off, whole, or counted as not reached";
  // The reap with 8 s: the host's stale file of another user removed, the last container's
  // too, every temp dir whole.
  EXPECT_EQ(o.at("host_stale_left"), "no");
  EXPECT_EQ(o.at("reap_host_outcome"), "removed");
  EXPECT_EQ(o.at("late_file_left"), "no");
  EXPECT_EQ(o.at("reap_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("reap_complete"), "True");
  EXPECT_EQ(o.at("reap_roots"), "26") << "the host's and every container's";
  EXPECT_EQ(o.at("reap_late_root"), "1");
  EXPECT_EQ(o.at("reap_host_kind"), "host");
  EXPECT_EQ(o.at("reap_stopped"), "0");
}

// Twelve fake containers share one 60 MB passwd: it was parsed once for each (about 0.4 s of
// CPU each on this machine, 10 s for the audit and a dry-run reap together); it is parsed once
// per run now. The bound leaves the one parse (about 0.5 s) four times its cost; the twelve
// parses of before are twice it. Memory stays that of one passwd.
TEST(HostileInput, FakeContainersSharingAHugePasswdCostOneParse) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("setpriv") || !test::have_program("python3")) GTEST_SKIP() << "needs setpriv, python3";
  const Outcome o = run_case(with_fake_containers(12, "userN:x:1N:1N::/home/u:/bin/sh", R"SH(
cpu $H audit --format json --output /tmp/a.json > /tmp/a.cpu; echo audit_rc=$?
sed 's/cpu_s=/audit_cpu_s=/; s/rss_kb=/audit_rss_kb=/' /tmp/a.cpu
cpu $H reap --dry-run --min-age 0 --format json --output /tmp/r.json > /tmp/r.cpu; echo reap_rc=$?
sed 's/cpu_s=/reap_cpu_s=/; s/rss_kb=/reap_rss_kb=/' /tmp/r.cpu
python3 -c '
import json
a = json.load(open("/tmp/a.json")); r = json.load(open("/tmp/r.json"))
print("audit_complete=%s audit_namespaces=%d" % (a["complete"], a["summary"]["namespaces"]))
print("reap_complete=%s" % r["complete"])'
)SH"));
  ASSERT_EQ(o.at("containers_ready"), "13") << o.result.err;
  EXPECT_NE(o.at("audit_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("audit_complete"), "True");
  EXPECT_EQ(o.at("audit_namespaces"), "14") << "12 ghosts, nobody's in the last container, daemon's";
  EXPECT_EQ(o.at("reap_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("reap_complete"), "True");
  EXPECT_LT(std::stod(o.at("audit_cpu_s")), 2.5) << "audit: user + system CPU seconds";
  EXPECT_LT(std::stod(o.at("reap_cpu_s")), 2.5) << "reap --dry-run: user + system CPU seconds";
  EXPECT_LT(std::stol(o.at("audit_rss_kb")), 220 * 1024) << "one passwd parsed at a time";
  EXPECT_LT(std::stol(o.at("reap_rss_kb")), 220 * 1024);
}

// Six hundred fake containers (a tmpfs /tmp and a namespace each; any user can make thousands):
// each one's liveness had a pass over /proc of its own to find the processes of its mount
// namespace, N passes over N processes, 18.7 s for a dry-run reap of 1,000 of them on this
// machine. One pass now serves every container, taken again only for a namespace with a file
// changed since it began: the run is linear in the containers. The bound is about three times
// what 600 cost now and a third of what they cost before.
TEST(HostileInput, ManyFakeContainersCostOnePassOverProcNotOneEach) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("setpriv")) GTEST_SKIP() << "needs setpriv";
  const Outcome o = run_case(R"SH(
cat > /tmp/inner.sh <<'INNER'
H=/proc/$$/fd/9
mkdir /tmp/fake
cat > /tmp/fake/fake.sh <<'EOF'
mount -t tmpfs none /tmp || exit 1
mkdir /tmp/hsperfdata_ghost && : > /tmp/ready
exec sleep 300
EOF
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done' EXIT
for k in $(seq 600); do
  setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm sh /tmp/fake/fake.sh & PIDS="$PIDS $!"
done
ready=0
for p in $PIDS; do
  i=0; while [ $i -lt 600 ] && ! [ -e /proc/$p/root/tmp/ready ]; do sleep 0.1; i=$((i+1)); done
  [ -e /proc/$p/root/tmp/ready ] && ready=$((ready+1))
done
echo containers_ready=$ready
python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("rc=%d cpu_s=%.2f" % (rc, r.ru_utime + r.ru_stime))' $H reap --dry-run --format json --output /tmp/r.json
python3 -c '
import json
r = json.load(open("/tmp/r.json"))
print("complete=%s roots=%d" % (r["complete"], len(r["reap"]["roots"])))'
INNER
unshare --pid --fork --mount-proc sh /tmp/inner.sh
)SH");
  ASSERT_EQ(o.at("containers_ready"), "600") << o.result.err;
  EXPECT_EQ(o.at("rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("complete"), "True");
  EXPECT_EQ(o.at("roots"), "601") << "the host's and every container's";
  EXPECT_LT(std::stod(o.at("cpu_s")), 1.0) << "user + system CPU seconds of a dry-run reap of 600 containers";
}

}  // namespace
}  // namespace hsperfguard
