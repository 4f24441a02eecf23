// Hostile input, third outside review: attach files of containers that share the host's
// /tmp, and a fake container's temp dir named as the host's.
//
// Each case runs as root in a private mount namespace with its own /tmp, /run and /dev (the
// harness of hostile_support.hpp), and in a pid namespace of its own with its own /proc: the
// root run's container scan then sees the case's containers and nothing else.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::in_own_pid_namespace;
using hostile::Outcome;
using hostile::run_case;

// A container with its own pid and mount namespaces that shares the host's /tmp (as `docker
// -v /tmp:/tmp` does) runs a JDK 17 JVM as nobody whose pid there is 5000 (no pid 5000 exists
// outside); `jcmd 5000` inside makes its attach listener /tmp/.java_pid5000. Before: root's
// reap judged that socket against the host's pids ("pid 5000 no longer exists") and removed it
// while the JVM ran; the audit never judged an attach file's pid at all. Now both match the
// name in every pid namespace whose processes use this /tmp (by the last NSpid field, as for
// backing files): the socket is live and stays, the same inode, and the JVM answers jcmd. A
// stale socket of a pid gone in every namespace is still removed, and the audit agrees.
TEST(HostileInput, ContainerSharingTheHostsTmpKeepsItsJvmsAttachSocket) {
  SKIP_UNLESS_ROOT();
  for (const char* program : {"setpriv", "nsenter", "python3", "java", "javac", "jcmd"}) {
    if (!test::have_program(program)) GTEST_SKIP() << "needs " << program;
  }
  const Outcome o = run_case(in_own_pid_namespace(R"SH(
mkdir /tmp/src && cat > /tmp/src/Idle.java <<'J'
public class Idle { public static void main(String[] a) throws Exception { Thread.sleep(600000); } }
J
javac -d /tmp/src /tmp/src/Idle.java && chmod -R a+rX /tmp/src || exit 1
# The container: its own pid and mount namespaces, this /tmp. Its JVM gets pid 5000 there.
unshare --pid --fork --mount --propagation private --mount-proc sh -c '
  echo 4999 > /proc/sys/kernel/ns_last_pid
  setpriv --reuid=65534 --regid=65534 --clear-groups java -XX:+UseSerialGC -Xmx32m -cp /tmp/src Idle; true' &
PIDS="$PIDS $!"
JPID=""
i=0
while [ $i -lt 300 ] && [ -z "$JPID" ]; do
  for p in $(pgrep -x java); do grep -qE '^NSpid:.*[[:space:]]5000$' /proc/$p/status && JPID=$p; done
  [ -z "$JPID" ] && sleep 0.1; i=$((i+1))
done
PIDS="$JPID $PIDS"
i=0; while [ $i -lt 300 ] && ! [ -e /tmp/hsperfdata_nobody/5000 ]; do sleep 0.1; i=$((i+1)); done
echo jvm_host_pid_differs=$([ -n "$JPID" ] && [ "$JPID" != 5000 ] && echo yes || echo no)
jcmd_inside() { timeout 60 nsenter -t $JPID -p -m setpriv --reuid=65534 --regid=65534 --clear-groups jcmd 5000 VM.version > /dev/null 2>&1; }
jcmd_inside; echo jcmd_before=$?
echo socket_made=$([ -S /tmp/.java_pid5000 ] && echo yes || echo no)
BEFORE=$(stat -c %i /tmp/.java_pid5000 2>/dev/null)
# The control: a listener socket of a pid gone in every pid namespace, nobody's.
sleep 0 & wait $!; GONE=$!
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' /tmp/.java_pid$GONE
chown nobody /tmp/.java_pid$GONE && chmod 0600 /tmp/.java_pid$GONE
sleep 2
$H audit --format json --output /tmp/a.json > /dev/null 2> /tmp/a.err; echo audit_rc=$?
$H reap --min-age 1s --no-lock --format json --output /tmp/r.json 2> /tmp/r.err; echo reap_rc=$?
echo socket_left=$([ -S /tmp/.java_pid5000 ] && echo yes || echo no)
echo same_socket=$([ "$(stat -c %i /tmp/.java_pid5000 2>/dev/null)" = "$BEFORE" ] && echo yes || echo no)
echo control_left=$([ -e /tmp/.java_pid$GONE ] && echo yes || echo no)
jcmd_inside; echo jcmd_after=$?
python3 -c '
import json, sys
jpid, gone = int(sys.argv[1]), sys.argv[2]
r = json.load(open("/tmp/r.json"))
for item in r["plan"]:
    if item["name"] == ".java_pid5000":
        print("reap_verdict=%s reap_action=%s" % (item["verdict"], item["action"]))
        print("reap_decided_by_host_pid=%s" % (item["evidence"].get("decided_by_pid") == jpid))
    if item["name"] == ".java_pid" + gone:
        print("control_verdict=%s control_action=%s" % (item["verdict"], item["action"]))
a = json.load(open("/tmp/a.json"))
def rules(path):
    return sorted(f["rule"] for e in a["attach"] if e["path"] == path for f in e["findings"])
print("audit_live_rules=%s" % ",".join(rules("/tmp/.java_pid5000")))
print("audit_control_rules=%s" % ",".join(rules("/tmp/.java_pid" + gone)))' "$JPID" "$GONE"
)SH"));
  ASSERT_EQ(o.at("jvm_host_pid_differs"), "yes") << o.result.out << o.result.err;
  ASSERT_EQ(o.at("jcmd_before"), "0") << o.result.out << o.result.err;
  ASSERT_EQ(o.at("socket_made"), "yes") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("reap_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("socket_left"), "yes");
  EXPECT_EQ(o.at("same_socket"), "yes");
  EXPECT_EQ(o.at("reap_verdict"), "live");
  EXPECT_EQ(o.at("reap_action"), "keep");
  EXPECT_EQ(o.at("reap_decided_by_host_pid"), "True");
  EXPECT_EQ(o.at("jcmd_after"), "0");
  EXPECT_EQ(o.at("audit_live_rules"), "");
  // The control: gone everywhere, removed; the audit says so too.
  EXPECT_EQ(o.at("control_verdict"), "stale");
  EXPECT_EQ(o.at("control_action"), "remove");
  EXPECT_EQ(o.at("control_left"), "no");
  EXPECT_EQ(o.at("audit_control_rules"), "attach.stale");
}

// uid 4242 makes a user and mount namespace with a tmpfs of its own on /tmp and one namespace
// there. Before: root's audit (the cron job's `--quiet --fail-on high`) printed "high
// tmpdir.unsafe /tmp: temp dir /tmp is unsafe ... owned by uid 4242" with the remedy `chown
// root:root /tmp && chmod 1777 /tmp`, and the text report "1 namespace(s) in /tmp": the host's
// /tmp, which is root's and 1777. Now the finding (path, message, remediation, evidence) and
// the text name the container's /tmp as the host reaches it, /proc/<pid>/root/tmp, say whose
// it is, and never tell root to chown the host's /tmp; the rating stays (a fake container and
// a rootless one look alike from here).
TEST(HostileInput, FakeContainersTempDirIsNamedAsTheContainersNotTheHosts) {
  SKIP_UNLESS_ROOT();
  for (const char* program : {"setpriv", "python3"}) {
    if (!test::have_program(program)) GTEST_SKIP() << "needs " << program;
  }
  const Outcome o = run_case(in_own_pid_namespace(R"SH(
setpriv --reuid=4242 --regid=4242 --clear-groups unshare -Urm sh -c \
  'mount -t tmpfs none /tmp && mkdir /tmp/hsperfdata_app && : > /tmp/ready && exec sleep 120' &
C=$!; PIDS="$PIDS $C"
i=0; while [ $i -lt 300 ] && ! [ -e /proc/$C/root/tmp/ready ]; do sleep 0.1; i=$((i+1)); done
echo container_ready=$([ -e /proc/$C/root/tmp/ready ] && echo yes || echo no)
echo where=/proc/$C/root/tmp
$H audit --quiet --fail-on high > /tmp/quiet.out 2> /tmp/quiet.err; echo quiet_rc=$?
echo quiet_names_container=$(grep -c "^high tmpdir.unsafe /proc/$C/root/tmp: " /tmp/quiet.out)
echo quiet_names_host=$(grep -c "tmpdir.unsafe /tmp:" /tmp/quiet.out)
echo quiet_host_chown=$(grep -c "chown root:root /tmp " /tmp/quiet.out)
$H audit --format text > /tmp/text.out 2>&1
echo text_count_line=$(grep -c "1 namespace(s) in /proc/$C/root/tmp, " /tmp/text.out)
$H audit --format json --output /tmp/a.json 2> /dev/null
)SH" + test::report_v1_in_place("/tmp/a.json") + R"SH(
python3 -c '
import json, sys
where, pid = sys.argv[1], int(sys.argv[2])
a = json.load(open("/tmp/a.json"))
found = []
def walk(v):
    if isinstance(v, dict):
        if v.get("rule") == "tmpdir.unsafe": found.append(v)
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
walk(a)
print("findings=%d" % len(found))
f = found[0]
print("finding_path_is_container=%s" % (f["path"] == where))
print("message_names_container=%s" % (where in f["message"] and "container host_pid %d" % pid in f["message"]))
print("remediation_names_container=%s" % (where in f["remediation"]))
print("remediation_host_chown=%s" % ("chown root:root /tmp " in f["remediation"] or f["remediation"].endswith("chown root:root /tmp")))
print("evidence_host_pid=%s" % f["evidence"]["temp_dir"]["host_pid"])
print("severity=%s" % f["severity"])' "/proc/$C/root/tmp" "$C"
)SH"));
  ASSERT_EQ(o.at("container_ready"), "yes") << o.result.out << o.result.err;
  const std::string where = o.at("where");
  EXPECT_EQ(o.at("quiet_rc"), "1") << o.result.err;  // the rating stays: high
  EXPECT_EQ(o.at("quiet_names_container"), "1") << o.result.out;
  EXPECT_EQ(o.at("quiet_names_host"), "0") << o.result.out;
  EXPECT_EQ(o.at("quiet_host_chown"), "0") << o.result.out;
  EXPECT_EQ(o.at("text_count_line"), "1") << o.result.out;
  EXPECT_EQ(o.at("findings"), "1");
  EXPECT_EQ(o.at("finding_path_is_container"), "True") << where;
  EXPECT_EQ(o.at("message_names_container"), "True");
  EXPECT_EQ(o.at("remediation_names_container"), "True");
  EXPECT_EQ(o.at("remediation_host_chown"), "False");
  EXPECT_EQ(o.at("evidence_host_pid"), where.substr(6, where.size() - 15));
  EXPECT_EQ(o.at("severity"), "high");
}

}  // namespace
}  // namespace hsperfguard
