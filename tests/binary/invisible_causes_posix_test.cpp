// JVMs that jps cannot see for causes met in the field, with real processes (Linux, as root):
// - a real JVM (JDK 17 and JDK 25) whose uid has no passwd entry, as `docker run --user
//   54321` or OpenShift's arbitrary uids run it: HotSpot names its namespace after the user
//   name, and without one makes none. Before, ps said `blind (undetermined): nothing observed
//   now explains it ... fix: restart the JVM`, and the audit said nothing at all (a JVM without
//   a user name was given to no namespace and no temp dir);
// - an OpenJ9 JVM, stood in for by a process that runs (maps executable) a libj9vm29.so and a
//   libjvm.so, as an OpenJ9 JDK's launcher does (no OpenJ9 here). Before, it was an invisible
//   HotSpot: `blind (undetermined)` and a jvm.cause-undetermined finding.
//
// Each runs in a private mount namespace with its own /tmp and a pid namespace of its own
// (hostile_support.hpp), so the processes are the case's alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "hostile_support.hpp"
#include "jvm_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

constexpr const char* kJdk25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";

TEST(InvisibleCauses, AJvmWhoseUidHasNoPasswdEntryIsNamedForItOnJdk17AndJdk25) {
  SKIP_UNLESS_ROOT();
  ASSERT_TRUE(test::have_jdk()) << "needs java (JDK 17) on PATH";
  ASSERT_EQ(::access(kJdk25, X_OK), 0) << "needs JDK 25 at " << kJdk25;
  // The case's /dev is an empty tmpfs: the JVMs get the devices they read, and run the test
  // program from the source tree (the single-file launcher compiles it in memory).
  const Outcome o = run_case(hostile::in_own_pid_namespace(
      "SOURCE='" + test::source_path("tests/java/IdleJvm.java") + "'\nJDK25='" + kJdk25 + "'\n" + R"SH(
for d in null:3 zero:5 random:8 urandom:9; do mknod -m 666 /dev/${d%%:*} c 1 ${d##*:}; done
echo uid_has_entry=$(getent passwd 54321 >/dev/null && echo yes || echo no)
NOUSER="setpriv --reuid 54321 --regid 54321 --clear-groups"
sleep 600 | $NOUSER java -XX:+UseSerialGC -Xmx64m "$SOURCE" > /tmp/j17.out 2>&1 &
J17=$!; PIDS="$PIDS $J17"
sleep 600 | $NOUSER "$JDK25" -XX:+UseSerialGC -Xmx64m "$SOURCE" > /tmp/j25.out 2>&1 &
J25=$!; PIDS="$PIDS $J25"
i=0; while [ $i -lt 900 ] && ! { grep -q ready /tmp/j17.out && grep -q ready /tmp/j25.out; }; do sleep 0.1; i=$((i+1)); done
echo ready=$(cat /tmp/j17.out /tmp/j25.out | grep -c ready)
echo uids=$(awk '/^Uid:/ {print $3}' /proc/$J17/status),$(awk '/^Uid:/ {print $3}' /proc/$J25/status)
echo namespaces=$(ls -d /tmp/hsperfdata_* 2>/dev/null | wc -l)
$H ps --format json > /tmp/ps.json
$H ps > /tmp/ps.txt
$H audit --no-policy --format json > /tmp/a.json; echo audit_rc=$?
)SH" + test::report_v1_in_place("/tmp/a.json") + R"SH(
python3 - $J17 $J25 <<'PY'
import json, sys
rows = {r["host_pid"]: r for r in json.load(open("/tmp/ps.json"))["jvms"]}
d = json.load(open("/tmp/a.json"))
findings = [f for n in d["namespaces"] for f in n["findings"]] + [f for r in d["roots"] for f in r["findings"]]
for name, pid in (("j17", int(sys.argv[1])), ("j25", int(sys.argv[2]))):
    row = rows.get(pid, {})
    print("%s_state=%s" % (name, row.get("state")))
    print("%s_reason=%s" % (name, row.get("reason")))
    print("%s_fix_restart_alone=%s" % (name, "A restart alone does not help" in (row.get("fix") or "")))
    about = [f for f in findings if f["evidence"].get("pid") == pid]
    print("%s_rules=%s" % (name, ",".join(f["rule"] for f in about)))
    for f in about:
        print("%s_severity=%s %s_uid=%s %s_path=%s" % (name, f["severity"], name, f["evidence"].get("uid"), name, f["path"]))
        print("%s_ps_fix_is_audits=%s" % (name, row.get("fix") == f["remediation"]))
PY
grep -c "blind (no-passwd-entry): its effective uid 54321 has no entry" /tmp/ps.txt | sed 's/^/ps_text_lines=/'
$H inspect $J25 > /dev/null 2> /tmp/inspect.err; echo inspect_rc=$?
grep -c "its effective uid 54321 has no entry.*A restart alone does not help" /tmp/inspect.err | sed 's/^/inspect_names_cause=/'
)SH"));
  const std::string& out = o.result.out;
  ASSERT_EQ(o.at("uid_has_entry"), "no") << out;
  ASSERT_EQ(o.at("ready"), "2") << out << o.result.err;
  ASSERT_EQ(o.at("uids"), "54321,54321") << out;
  EXPECT_EQ(o.at("namespaces"), "0") << "the JDKs make no namespace without a user name\n" << out;
  for (const char* name : {"j17", "j25"}) {
    const std::string jdk = name;
    // Before: state blind, reason undetermined, fix "Restart the JVM ..."; no audit finding.
    EXPECT_EQ(o.at(jdk + "_state"), "blind") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_reason"), "no-passwd-entry") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_fix_restart_alone"), "True") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_rules"), "jvm.no-passwd-entry") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_severity"), "high") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_uid"), "54321") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_path"), "/tmp") << jdk << "\n" << out;
    EXPECT_EQ(o.at(jdk + "_ps_fix_is_audits"), "True") << jdk << "\n" << out;
  }
  EXPECT_EQ(o.at("ps_text_lines"), "2") << out;
  EXPECT_EQ(o.at("inspect_names_cause"), "1") << out;
  EXPECT_EQ(o.at("inspect_rc"), "3") << out;
  EXPECT_EQ(o.at("audit_rc"), "1") << "a high finding" << out;
}

TEST(InvisibleCauses, AnOpenJ9JvmIsNamedAndIsNoInvisibleHotSpot) {
  SKIP_UNLESS_ROOT();
  ASSERT_TRUE(test::have_program("setpriv") && ::access("/usr/bin/python3", X_OK) == 0);
  // Two processes of nobody: one maps a libj9vm29.so and a libjvm.so executable (the OpenJ9
  // layout: lib/default/libj9vm29.so, lib/server/libjvm.so), the other only the libjvm.so
  // (what any HotSpot without a backing file looks like).
  const Outcome o = run_case(hostile::in_own_pid_namespace(R"SH(
mkdir -p /tmp/j9/lib/default /tmp/j9/lib/server
head -c 8192 /dev/zero > /tmp/j9/lib/default/libj9vm29.so
head -c 8192 /dev/zero > /tmp/j9/lib/server/libjvm.so
cat > /tmp/j9/map.py <<'EOF'
import ctypes, os, sys, time
ready, paths = sys.argv[1], sys.argv[2:]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
for path in paths:
    fd = os.open(path, os.O_RDONLY)
    if libc.mmap(None, 4096, 5, 2, fd, 0) in (None, ctypes.c_void_p(-1).value):  # PROT_READ|PROT_EXEC, MAP_PRIVATE
        sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
open(ready, "w").close()
time.sleep(300)
EOF
chmod -R a+rX /tmp/j9
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
$NOBODY /usr/bin/python3 /tmp/j9/map.py /tmp/j9.ready /tmp/j9/lib/server/libjvm.so /tmp/j9/lib/default/libj9vm29.so & J9=$!
$NOBODY /usr/bin/python3 /tmp/j9/map.py /tmp/hs.ready /tmp/j9/lib/server/libjvm.so & HS=$!
PIDS="$PIDS $J9 $HS"
i=0; while [ $i -lt 100 ] && ! [ -e /tmp/j9.ready -a -e /tmp/hs.ready ]; do sleep 0.1; i=$((i+1)); done
echo j9_maps=$(grep -c 'r-xp.*/libj9vm29.so$' /proc/$J9/maps) hs_maps=$(grep -c 'r-xp.*/libjvm.so$' /proc/$HS/maps)
$H ps --format json > /tmp/ps.json
$H ps > /tmp/ps.txt
$H audit --no-policy --format json > /tmp/a.json
$H inspect $J9 > /tmp/inspect.out 2> /tmp/inspect.err; echo inspect_rc=$?
python3 - $J9 $HS <<'PY'
import json, sys
rows = {r["host_pid"]: r for r in json.load(open("/tmp/ps.json"))["jvms"]}
d = json.load(open("/tmp/a.json"))
findings = [f for n in d["namespaces"] for f in n["findings"]] + [f for r in d["roots"] for f in r["findings"]]
for name, pid in (("j9", int(sys.argv[1])), ("hs", int(sys.argv[2]))):
    row = rows.get(pid, {})
    print("%s_state=%s %s_reason=%s" % (name, row.get("state"), name, row.get("reason")))
    print("%s_rules=%s" % (name, ",".join(f["rule"] for f in findings if f["evidence"].get("pid") == pid) or "none"))
print("j9_says_by_design=%s" % ("OpenJ9 writes no hsperfdata, by design" in (rows.get(int(sys.argv[1]), {}).get("explanation") or "")))
PY
echo ps_text=$(grep -c "openj9 (no-hsperfdata): an OpenJ9 JVM" /tmp/ps.txt)
echo inspect_names_openj9=$(grep -c "is an OpenJ9 JVM, which has no backing file" /tmp/inspect.err)
)SH"));
  const std::string& out = o.result.out;
  ASSERT_EQ(o.at("j9_maps"), "1") << out << o.result.err;
  ASSERT_EQ(o.at("hs_maps"), "1") << out << o.result.err;
  // Before: j9_state=blind j9_reason=undetermined j9_rules=jvm.cause-undetermined.
  EXPECT_EQ(o.at("j9_state"), "openj9") << out;
  EXPECT_EQ(o.at("j9_reason"), "no-hsperfdata") << out;
  EXPECT_EQ(o.at("j9_rules"), "none") << out;
  EXPECT_EQ(o.at("j9_says_by_design"), "True") << out;
  EXPECT_EQ(o.at("ps_text"), "1") << out;
  EXPECT_EQ(o.at("inspect_names_openj9"), "1") << out;
  EXPECT_NE(o.at("inspect_rc"), "0") << out;
  // The libjvm.so alone is still an invisible HotSpot (the test sees what it must).
  EXPECT_EQ(o.at("hs_state"), "blind") << out;
  EXPECT_EQ(o.at("hs_rules"), "jvm.cause-undetermined") << out;
}

}  // namespace
}  // namespace hsperfguard
