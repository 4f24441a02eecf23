// The audit judges a temp dir's file system as the JVMs see it, not as its own sandbox does.
// hsperfguard-audit.service runs with ProtectSystem=strict: systemd binds the whole tree
// read-only in the unit's own mount namespace, /tmp included, while the host's JVMs (in pid 1's
// mount namespace) write to /tmp as ever. The tool read ST_RDONLY from statfs in its own
// namespace, so every namespace got namespace.read-only (high), the unit failed every hour on
// every healthy host and HsperfguardNamespaceHigh fired. Now, in a mount namespace that is not
// pid 1's, it reads read-only-ness through /proc/1/root (platform/posix/jvm_view_posix.hpp).
//
// Each case runs in a pid namespace of its own whose pid 1 (the case's shell) has a writable
// tmpfs /tmp, as a host's init has; the audit runs in a mount namespace of its own where /tmp
// is bound read-only recursively, as ProtectSystem=strict does, with the audit unit's own
// capability bounding set (parsed from the unit file) and no_new_privs, and its ExecStart's
// --fail-on high --format json.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

std::string audit_unit_bounding_set(const std::string& without = "") {
  const auto caps =
      test::unit_capabilities(std::string(HSPERFGUARD_SOURCE_DIR) + "/packaging/systemd/hsperfguard-audit.service");
  return test::bounding_set(caps, without);
}

// `setup` runs as pid 1 of the case's pid namespace (its /tmp writable); then the audit runs
// sandboxed with the bounding set `set`, and the script prints its exit status, its findings'
// rules, and the temp dir's and each namespace's volume.
Outcome run_sandboxed_audit(const std::string& setup, const std::string& set) {
  return run_case(hostile::in_own_pid_namespace(setup + R"SH(
cat > /tmp/sandboxed.sh <<'SANDBOX'
mount --rbind /tmp /tmp && mount -o remount,ro,bind /tmp || exit 120
for m in $(findmnt -rn -o TARGET | grep '^/tmp/'); do mount -o remount,ro,bind "$m" || exit 121; done
touch /tmp/probe 2>/dev/null && echo sandbox_tmp=writable > /run/probe || echo sandbox_tmp=read-only > /run/probe
exec setpriv --bounding-set "$SET" --inh-caps=-all --no-new-privs "$H" audit --no-policy --fail-on high --format json
SANDBOX
SET=')SH" + set + R"SH(' H=$H unshare --mount --propagation private sh /tmp/sandboxed.sh > /tmp/audit.json
echo rc=$?
cat /run/probe
python3 - <<'PY'
import json
r = json.load(open("/tmp/audit.json"))
rules = sorted({f["rule"] for root in r["roots"] for f in root["findings"]} |
               {f["rule"] for ns in r["namespaces"] for f in ns["findings"]})
print("rules=" + ",".join(rules))
def show(v):
    return "%s/%s/%s" % (v.get("read_only"), v.get("read_only_seen_by", "-"), v.get("read_only_to_observer", "-"))
print("tmp=" + show(r["roots"][0]["volume"]))
for ns in r["namespaces"]:
    print("ns_%s=%s" % (ns["name"], show(ns["volume"] or {})))
    if ns["volume"] and "read_only_view_error" in ns["volume"]:
        print("view_error=" + ns["volume"]["read_only_view_error"])
PY
)SH"));
}

const char* kHealthyHost = R"SH(
mkdir -m 0755 /tmp/hsperfdata_root
mkdir -m 0755 /tmp/hsperfdata_nobody && chown nobody /tmp/hsperfdata_nobody
mkdir -m 0755 /tmp/hsperfdata_daemon && chown daemon /tmp/hsperfdata_daemon
mount -t tmpfs -o mode=0755,uid=1 tmpfs /tmp/hsperfdata_daemon
)SH";

TEST(JvmView, AuditUnderTheAuditUnitsSandboxJudgesTmpAsTheJvmsSeeIt) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("setpriv") || !test::have_program("findmnt")) GTEST_SKIP() << "needs setpriv, findmnt";
  const Outcome o = run_sandboxed_audit(kHealthyHost, audit_unit_bounding_set());
  EXPECT_EQ(o.at("sandbox_tmp"), "read-only") << o.result.out << o.result.err;
  // Before: rc=1, namespace.read-only on every namespace and tmpdir.new-namespaces-fail.
  EXPECT_EQ(o.at("rc"), "0") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("rules").find("read-only"), std::string::npos) << o.at("rules");
  EXPECT_EQ(o.at("rules").find("new-namespaces-fail"), std::string::npos) << o.at("rules");
  EXPECT_EQ(o.at("tmp"), "False/pid 1/True") << "writable to the JVMs, read-only to the sandbox";
  EXPECT_EQ(o.at("ns_hsperfdata_root"), "False/pid 1/True");
  // A namespace on a mount of its own: pid 1's mount table for the mount pid 1 finds there.
  EXPECT_EQ(o.at("ns_hsperfdata_daemon"), "False/pid 1/True");
}

// What is read-only to the JVMs is still found read-only through the sandbox.
TEST(JvmView, AMountReadOnlyToTheJvmsIsStillFoundUnderTheSandbox) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("setpriv") || !test::have_program("findmnt")) GTEST_SKIP() << "needs setpriv, findmnt";
  const Outcome o = run_sandboxed_audit(std::string(kHealthyHost) + "mount -o remount,ro /tmp/hsperfdata_daemon\n",
                                        audit_unit_bounding_set());
  EXPECT_EQ(o.at("rc"), "1") << o.result.out << o.result.err;
  EXPECT_NE(o.at("rules").find("namespace.read-only"), std::string::npos) << o.at("rules");
  EXPECT_EQ(o.at("ns_hsperfdata_daemon"), "True/pid 1/-");
  EXPECT_EQ(o.at("ns_hsperfdata_root"), "False/pid 1/True");
}

// Without CAP_SYS_PTRACE pid 1's root cannot be opened: the tool's own view stands, and the
// volume says whose view it is and why.
TEST(JvmView, WithoutPtraceTheOwnViewStandsAndSaysSo) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("setpriv") || !test::have_program("findmnt")) GTEST_SKIP() << "needs setpriv, findmnt";
  const Outcome o = run_sandboxed_audit(kHealthyHost, audit_unit_bounding_set("sys_ptrace"));
  EXPECT_EQ(o.at("tmp"), "True/observer/-") << o.result.out << o.result.err;
  EXPECT_NE(o.at("view_error").find("/proc/1"), std::string::npos) << o.at("view_error");
}

}  // namespace
}  // namespace hsperfguard
