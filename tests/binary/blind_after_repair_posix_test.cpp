// A JVM blinded by a namespace that `repair` then fixes, with a real JVM (Linux, as root).
// HotSpot judges its namespace once, when it starts: root's JVM refuses a 0777
// /tmp/hsperfdata_root and runs without shared performance data, and stays so after repair
// makes the namespace 0755. Before, the audit then said `jvm.cause-undetermined` (low,
// "nothing observed now explains it") and exited 0: the fix erased the explanation and lowered
// the severity. Now the namespace's ctime, later than the JVM's start, explains it
// (`jvm.namespace-changed`, at namespace.jvm-blinded's severity), and `ps` gives the same
// reason with the audit's remedy.
//
// Runs in a private mount namespace with its own /tmp and a pid namespace of its own
// (hostile_support.hpp), so the JVM and the namespace are the case's alone.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"
#include "jvm_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

TEST(BlindAfterRepair, AJvmBlindedByANamespaceFixedSinceIsExplainedAtTheCausesSeverity) {
  SKIP_UNLESS_ROOT();
  if (!test::have_jdk()) GTEST_SKIP() << "needs java";
  // The case's /tmp and /dev are empty tmpfs: the JVM gets the devices it reads, and runs its
  // test program from the source tree (the single-file launcher compiles it in memory).
  const Outcome o = run_case(hostile::in_own_pid_namespace(
      "SOURCE='" + test::source_path("tests/java/IdleJvm.java") + "'\n" + R"SH(
for d in null:3 zero:5 random:8 urandom:9; do mknod -m 666 /dev/${d%%:*} c 1 ${d##*:}; done
mkdir -m 0777 /tmp/hsperfdata_root
sleep 600 | java -XX:+UseSerialGC -Xmx64m "$SOURCE" > /tmp/java.out 2>&1 &
J=$!; PIDS="$PIDS $J"
i=0; while [ $i -lt 600 ] && ! grep -q ready /tmp/java.out; do sleep 0.1; i=$((i+1)); done
echo java_ready=$(grep -c ready /tmp/java.out)
sleep 3  # the chmod must come later than the start by more than its imprecision (2 s)
$H audit --no-policy --format json > /tmp/before.json; echo before_rc=$?
$H repair > /tmp/repair.txt; echo repair_rc=$?
echo namespace_mode=$(stat -c %a /tmp/hsperfdata_root)
$H audit --no-policy --format json > /tmp/after.json; echo after_rc=$?
$H ps --format json > /tmp/ps.json
)SH" + test::report_v1_in_place("/tmp/before.json") + "\n" + test::report_v1_in_place("/tmp/after.json") + R"SH(
python3 - <<'PY'
import json
def findings(path):
    r = json.load(open(path))
    return [f for ns in r["namespaces"] for f in ns["findings"]]
before = findings("/tmp/before.json")
after = findings("/tmp/after.json")
print("before_rules=" + ",".join(sorted(f["rule"] for f in before)))
print("after_rules=" + ",".join(sorted(f["rule"] for f in after)))
changed = [f for f in after if f["rule"] == "jvm.namespace-changed"]
blinded = [f for f in before if f["rule"] == "namespace.jvm-blinded"]
if changed and blinded:
    print("after_severity=" + changed[0]["severity"] + " blinded_severity=" + blinded[0]["severity"])
    print("after_message=" + changed[0]["message"].split(": ", 1)[1].replace("\n", " "))
rows = [r for r in json.load(open("/tmp/ps.json"))["jvms"] if r.get("state") == "blind"]
if rows:
    print("ps_reason=" + rows[0]["reason"])
    print("ps_fix_is_audits=%d" % int(bool(changed) and rows[0].get("fix") == changed[0]["remediation"]))
PY
)SH"));
  const std::string& out = o.result.out;
  ASSERT_EQ(o.at("java_ready"), "1") << out << o.result.err;
  EXPECT_EQ(o.at("before_rc"), "1") << out;
  EXPECT_EQ(o.at("before_rules"), "namespace.group-other-writable,namespace.jvm-blinded") << out;
  EXPECT_EQ(o.at("repair_rc"), "0") << out;
  EXPECT_EQ(o.at("namespace_mode"), "755") << out;
  // Before: after_rules=jvm.cause-undetermined, low, exit 0.
  EXPECT_EQ(o.at("after_rules"), "jvm.namespace-changed") << out;
  EXPECT_EQ(o.at("after_severity"), o.at("blinded_severity")) << out;
  EXPECT_EQ(o.at("after_severity"), "medium") << out;
  EXPECT_EQ(o.at("after_rc"), "1") << out;
  EXPECT_NE(o.at("after_message").find("changed after the JVM started"), std::string::npos) << out;
  EXPECT_EQ(o.at("ps_reason"), "namespace-changed") << out;
  EXPECT_EQ(o.at("ps_fix_is_audits"), "1") << out;
}

}  // namespace
}  // namespace hsperfguard
