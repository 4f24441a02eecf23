// Hostile input, third outside review: a fake container's temp dir named as the host's.
//
// Each case runs as root in a private mount namespace with its own /tmp, /run and /dev (the
// harness of hostile_support.hpp), and in a pid namespace of its own with its own /proc: the
// root run's container scan then sees the case's containers and nothing else.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

// Runs `body` (with $H) in a pid namespace of its own, with its own /proc.
std::string in_own_pid_namespace(const std::string& body) {
  return R"SH(
cat > /tmp/inner.sh <<'INNER'
H=/proc/$$/fd/9
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done' EXIT
)SH" + body + R"SH(
INNER
unshare --pid --fork --mount-proc sh /tmp/inner.sh
)SH";
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
echo text_count_line=$(grep -c "1 namespace(s) in /proc/$C/root/tmp$" /tmp/text.out)
$H audit --format json --output /tmp/a.json 2> /dev/null
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
