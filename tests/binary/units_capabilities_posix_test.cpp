// The shipped systemd units against a real container: the tool run under exactly the
// capability bounding set of hsperfguard-audit.service and hsperfguard-reap.service (parsed out
// of the unit files, so that the units and this test cannot drift apart) looks into a
// container's /tmp and finds its JVM's file; run with one capability less (CAP_SYS_PTRACE,
// which the kernel's ptrace access check on /proc/<pid>/ns/mnt and /proc/<pid>/root asks of a
// reader whose capabilities do not cover the container's processes'), it cannot, and says so:
// complete false, exit 3, the error, tmpdir.containers-unobserved, the metric. Before, such a
// run listed no container and exited 0 with "complete": true.
//
// Each case runs as root in a private mount namespace with its own /tmp, /run and /dev (the
// harness of hostile_support.hpp) and in a pid namespace of its own with its own /proc, so
// that the scan sees only this case's processes (never another container of the host). The
// container is `unshare --mount --pid --fork --mount-proc` with its own tmpfs /tmp and a real
// JVM (OpenJDK's source launcher) as its pid 1.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "hostile_support.hpp"
#include "jvm_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

bool can_run() {
  return hostile::can_run() && test::have_jdk() && test::have_program("setpriv") &&
         test::have_program("pgrep");
}

std::string unit_file(const std::string& name) {
  return std::string(HSPERFGUARD_SOURCE_DIR) + "/packaging/systemd/" + name;
}

// Starts the container and its JVM, then runs `$H ARGS` under the bounding set $SET and
// $LESS (setpriv as the unit: bounding set, no inheritable or ambient capabilities,
// no_new_privs; root's exec'd permitted set is then the bounding set), each with its report
// in /run/<name>.json and its metrics in /run/<name>.prom, and prints what the assertions ask.
Outcome run_container_case(const std::string& set, const std::string& less, const std::string& args) {
  return run_case(R"SH(
cat > /run/Sleep.java <<'EOF'
public class Sleep { public static void main(String[] a) throws Exception { Thread.sleep(600000); } }
EOF
cat > /tmp/inner.sh <<'INNER'
H=/proc/$$/fd/9
unshare --mount --pid --fork --mount-proc sh -c \
  'mount -t tmpfs -o mode=1777 tmpfs /tmp && exec java -Xmx32m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+UsePerfData /run/Sleep.java' &
C=$!
J=""
i=0
while [ $i -lt 600 ]; do
  [ -z "$J" ] && J=$(pgrep -P $C java)
  [ -n "$J" ] && [ -s /proc/$J/root/tmp/hsperfdata_root/1 ] && break
  sleep 0.1; i=$((i+1))
done
echo jvm=$J unshare=$C
echo jvm_file=$([ -n "$J" ] && [ -s /proc/$J/root/tmp/hsperfdata_root/1 ] && echo yes || echo no)
for run in shipped less; do
  if [ $run = shipped ]; then S="$SET"; else S="$LESS"; fi
  setpriv --bounding-set="$S" --inh-caps=-all --ambient-caps=-all --no-new-privs -- \
    $H $ARGS --format json --output /run/$run.json --metrics /run/$run.prom 2>/run/$run.err
  echo ${run}_rc=$?
  python3 - /run/$run.json $run $J <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); run = sys.argv[2]; jvm = sys.argv[3]
body = r.get("reap", r)
roots = body["roots"]
containers = [x for x in roots if x["kind"] == "container"]
host = [x for x in roots if x["kind"] == "host"][0]
errors = [e["path"] + " " + e["op"] + " " + e["message"] for x in roots for e in x.get("errors", [])]
errors += [e["path"] + " " + e["op"] + " " + e["message"] for e in r.get("errors", [])]
print("%s_complete=%s" % (run, r["complete"]))
print("%s_containers=%s" % (run, ",".join(x["root"] for x in containers) or "none"))
print("%s_jvm_error=%s" % (run, "yes" if any(e.startswith("/proc/%s/ns/mnt readlink" % jvm) for e in errors) else "no"))
if "namespaces" in r and "plan" not in r:
    files = [(ns["path"], f["name"], f["verdict"]["verdict"]) for ns in r["namespaces"] for f in ns.get("files", [])]
    print("%s_jvm_file=%s" % (run, ",".join("%s/%s:%s" % f for f in files if f[0].startswith("/proc/")) or "none"))
    print("%s_findings=%d" % (run, r["summary"]["findings"]))
    print("%s_by_rule=%s" % (run, ",".join("%s:%d" % kv for kv in sorted(r["summary"]["by_rule"].items()))))
    un = [f for x in r.get("roots", []) for f in x.get("findings", []) if f["rule"] == "tmpdir.containers-unobserved"]
    print("%s_unobserved_pids=%s" % (run, ",".join(str(p) for f in un for p in f["evidence"]["pids"]) or "none"))
else:
    items = [(i["path"], i["why"], i["action"]) for i in r["plan"]["items"]] if isinstance(r.get("plan"), dict) else \
            [(i["path"], i["why"], i["action"]) for i in r["plan"]]
    print("%s_jvm_file=%s" % (run, ",".join("%s:%s:%s" % i for i in items if i[0].startswith("/proc/")) or "none"))
PY
  echo ${run}_metric=$(grep "^hsperfguard_[a-z]*_processes_unobserved " /run/$run.prom)
done
case "$ARGS" in audit*)
  for run in shipped less; do
    if [ $run = shipped ]; then S="$SET"; else S="$LESS"; fi
    setpriv --bounding-set="$S" --inh-caps=-all --ambient-caps=-all --no-new-privs -- \
      $H ps --format json > /run/ps-$run.json 2>/dev/null
    echo ps_${run}_rc=$?
    python3 - /run/ps-$run.json $run $J <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); run = sys.argv[2]; jvm = int(sys.argv[3])
rows = r["jvms"] if "jvms" in r else r["rows"]
print("ps_%s_listed=%s" % (run, "yes" if any(x.get("host_pid") == jvm for x in rows) else "no"))
print("ps_%s_why=%s" % (run, "yes" if any("could not be looked into" in e["message"] for e in r["errors"]) else "no"))
PY
  done;;
esac
kill $J
wait $C
INNER
SET=')SH" + set + R"SH(' LESS=')SH" + less + R"SH(' ARGS=')SH" + args + R"SH(' unshare --pid --fork --mount-proc sh /tmp/inner.sh
)SH");
}

// The audit unit's capabilities: the container is audited (its JVM's file found, live). Without
// CAP_SYS_PTRACE the audit cannot read the container's namespace and says so; it said
// "complete": true, exit 0, with no container, before.
TEST(UnitCapabilities, AuditIsNotSilentlyBlindToContainersUnderTheUnitsBoundingSet) {
  if (!can_run()) GTEST_SKIP() << "needs root, unshare, setpriv, pgrep and a JDK";
  const auto caps = test::unit_capabilities(unit_file("hsperfguard-audit.service"));
  ASSERT_EQ(caps, (std::vector<std::string>{"dac_read_search", "kill", "sys_ptrace"}));
  const Outcome o = run_container_case(test::bounding_set(caps), test::bounding_set(caps, "sys_ptrace"),
                                       "audit --fail-on high");
  std::printf("%s", o.result.out.c_str());
  ASSERT_EQ(o.at("jvm_file"), "yes") << o.result.out << o.result.err;
  // The container is named after its first process (pid order): unshare, then its JVM.
  const std::string container = "/proc/" + o.at("unshare") + "/root";
  // The shipped set: the container's namespace audited, its JVM's file found live.
  EXPECT_EQ(o.at("shipped_rc"), "0") << o.result.out;
  EXPECT_EQ(o.at("shipped_complete"), "True");
  EXPECT_EQ(o.at("shipped_containers"), container);
  EXPECT_EQ(o.at("shipped_jvm_file"), container + "/tmp/hsperfdata_root/1:live");
  EXPECT_EQ(o.at("shipped_unobserved_pids"), "none");
  EXPECT_EQ(o.at("shipped_metric"), "hsperfguard_audit_processes_unobserved 0");
  // One less: incomplete, exit 3, the error, the finding naming the JVM's pid, the metric.
  EXPECT_EQ(o.at("less_rc"), "3") << o.result.out;
  EXPECT_EQ(o.at("less_complete"), "False");
  EXPECT_EQ(o.at("less_containers"), "none");
  EXPECT_EQ(o.at("less_jvm_error"), "yes");
  EXPECT_NE(o.at("less_by_rule").find("tmpdir.containers-unobserved:1"), std::string::npos) << o.at("less_by_rule");
  EXPECT_NE(("," + o.at("less_unobserved_pids") + ",").find("," + o.at("jvm") + ","), std::string::npos)
      << o.at("less_unobserved_pids");
  // The container's unshare and its JVM (the case's pid 1, a shell of ours, is placed at our
  // root by its mountinfo: it is not counted).
  EXPECT_EQ(o.at("less_metric"), "hsperfguard_audit_processes_unobserved 2");
  // ps: the JVM listed with the unit's set; without CAP_SYS_PTRACE not listed, and ps says
  // why and exits 3 (it listed nothing and exited 0 before).
  EXPECT_EQ(o.at("ps_shipped_rc"), "0");
  EXPECT_EQ(o.at("ps_shipped_listed"), "yes");
  EXPECT_EQ(o.at("ps_shipped_why"), "no");
  EXPECT_EQ(o.at("ps_less_rc"), "3");
  EXPECT_EQ(o.at("ps_less_listed"), "no");
  EXPECT_EQ(o.at("ps_less_why"), "yes");
}

// The reap unit's capabilities: a dry run looks into the container and keeps its JVM's file
// (live). Without CAP_SYS_PTRACE it cannot look into it and says so (exit 3, complete false,
// the error, the metric); it exited 0, complete, before.
TEST(UnitCapabilities, ReapIsNotSilentlyBlindToContainersUnderTheUnitsBoundingSet) {
  if (!can_run()) GTEST_SKIP() << "needs root, unshare, setpriv, pgrep and a JDK";
  const auto caps = test::unit_capabilities(unit_file("hsperfguard-reap.service"));
  ASSERT_EQ(caps, (std::vector<std::string>{"setuid", "setgid", "dac_read_search", "kill", "sys_ptrace"}));
  const Outcome o = run_container_case(test::bounding_set(caps), test::bounding_set(caps, "sys_ptrace"),
                                       "reap --dry-run --min-age 0 --lock-file /run/reap.lock");
  std::printf("%s", o.result.out.c_str());
  ASSERT_EQ(o.at("jvm_file"), "yes") << o.result.out << o.result.err;
  // The container is named after its first process (pid order): unshare, then its JVM.
  const std::string container = "/proc/" + o.at("unshare") + "/root";
  EXPECT_EQ(o.at("shipped_rc"), "0") << o.result.out;
  EXPECT_EQ(o.at("shipped_complete"), "True");
  EXPECT_EQ(o.at("shipped_containers"), container);
  EXPECT_EQ(o.at("shipped_jvm_file"), container + "/tmp/hsperfdata_root/1:live:keep");
  EXPECT_EQ(o.at("shipped_metric"), "hsperfguard_reap_processes_unobserved 0");
  EXPECT_EQ(o.at("less_rc"), "3") << o.result.out;
  EXPECT_EQ(o.at("less_complete"), "False");
  EXPECT_EQ(o.at("less_containers"), "none");
  EXPECT_EQ(o.at("less_jvm_error"), "yes");
  EXPECT_EQ(o.at("less_metric"), "hsperfguard_reap_processes_unobserved 2");
}

// The placement by mountinfo cannot be spoofed: without CAP_SYS_PTRACE another user's ns/mnt
// link cannot be read, and a process of nobody's in a mount namespace it unshared (its mounts
// copies of ours, at the same places, with new ids) is not taken for one of ours: it is
// unobserved and the run incomplete. A process of nobody's in our own namespace is placed by
// its mountinfo (our root's mounts, by id) and the run is complete; liveness, reading the
// process a file is named after, places it so too (its evidence's mount namespace).
TEST(UnitCapabilities, UnsharedCopyOfOurMountsCannotPassForOurNamespace) {
  if (!can_run()) GTEST_SKIP() << "needs root, unshare, setpriv, pgrep and a JDK";
  const auto caps = test::unit_capabilities(unit_file("hsperfguard-audit.service"));
  const Outcome o = run_case(R"SH(
cat > /tmp/inner.sh <<'INNER'
H=/proc/$$/fd/9
audit() {
  setpriv --bounding-set="$LESS" --inh-caps=-all --ambient-caps=-all --no-new-privs -- \
    $H audit --format json --output /run/a.json 2>/dev/null
  echo ${1}_rc=$?
  python3 - /run/a.json $1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); run = sys.argv[2]
un = [p for x in r["roots"] for f in x.get("findings", []) if f["rule"] == "tmpdir.containers-unobserved" for p in f["evidence"]["pids"]]
print("%s_complete=%s %s_unobserved=%s" % (run, r["complete"], run, ",".join(map(str, un)) or "none"))
PY
}
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 300 & OURS=$!
echo ours=$OURS
audit ours
# The same placement where liveness reads a process named by a file: the evidence gives its
# mount namespace, which only its mountinfo can tell without CAP_SYS_PTRACE.
mkdir -m 1777 /tmp/p && mkdir -m 700 /tmp/p/hsperfdata_nobody
head -c 32768 /dev/zero > /tmp/p/hsperfdata_nobody/$OURS
chown -R 65534:65534 /tmp/p/hsperfdata_nobody
setpriv --bounding-set="$LESS" --inh-caps=-all --ambient-caps=-all --no-new-privs -- \
  $H audit --tmpdir /tmp/p --no-containers --format json --output /run/p.json 2>/dev/null
python3 - /run/p.json $OURS <<'PY'
import json, sys
def walk(x):
    if isinstance(x, dict):
        for c in x.get("candidates", []):
            if isinstance(c, dict) and str(c.get("pid")) == sys.argv[2]:
                yield c
        for v in x.values(): yield from walk(v)
    elif isinstance(x, list):
        for v in x: yield from walk(v)
found = list(walk(json.load(open(sys.argv[1]))))
print("ours_placed=%s" % (found[0].get("mount_namespace", "none") if found else "no candidate"))
PY
echo our_mnt=$(readlink /proc/self/ns/mnt)
setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm sleep 300 & COPY=$!
i=0; while [ $i -lt 100 ] && [ "$(readlink /proc/$COPY/ns/mnt)" = "$(readlink /proc/self/ns/mnt)" ]; do sleep 0.05; i=$((i+1)); done
echo copy=$COPY
audit copy
kill $OURS $COPY
wait
INNER
LESS=')SH" + test::bounding_set(caps, "sys_ptrace") + R"SH(' unshare --pid --fork --mount-proc sh /tmp/inner.sh
)SH");
  std::printf("%s", o.result.out.c_str());
  // nobody's process in our namespace: placed by its mountinfo, the run complete.
  EXPECT_EQ(o.at("ours_rc"), "0") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("ours_complete"), "True");
  EXPECT_EQ(o.at("ours_unobserved"), "none");
  EXPECT_EQ(o.at("ours_placed"), o.at("our_mnt"));
  EXPECT_NE(o.at("our_mnt"), "");
  // nobody's copy of our mounts: not ours, unobserved, the run incomplete.
  EXPECT_EQ(o.at("copy_rc"), "3");
  EXPECT_EQ(o.at("copy_complete"), "False");
  EXPECT_EQ(o.at("copy_unobserved"), o.at("copy"));
}

}  // namespace
}  // namespace hsperfguard
