// What the tool tells a person to run, against a tenant who controls what a root run sees in
// her container. A user bind-mounts a file of this host (a root-owned 0644 file standing in
// for libc or /etc/passwd) over /tmp/hsperfdata_root/1234 and a root-owned 1777 directory of
// this host over /tmp/hsperfdata_app, inside her own user and mount namespace, and gives the
// root namespace to another uid. The audit rightly reports the mount points and repair rightly
// does nothing there, yet the remedies said `chmod 0600 /proc/N/root/tmp/hsperfdata_root/1234`
// (the host file), `chmod go-w` on the host directory and `chown root:root /tmp/hsperfdata_root`
// (this host's directory), and "or run: hsperfguard repair (it fixes this finding)".
//
// Runs as root in a private mount namespace with its own /tmp, /run and /dev and a pid
// namespace of its own (hostile_support.hpp), so the scan sees only this case's container.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

TEST(Remedies, AContainersBoundHostFilesGetNoRemedyThatChangesThemFromTheHost) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(hostile::in_own_pid_namespace(R"SH(
mkdir -p /run/host && echo libc > /run/host/libc.so && chmod 0644 /run/host/libc.so
mkdir -m 1777 /run/host/shared
chmod 0755 /run /run/host
setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm sh -c '
mount -t tmpfs none /tmp || exit 1
mkdir -m 0777 /tmp/hsperfdata_root && : > /tmp/hsperfdata_root/1234 || exit 1
mount --bind /run/host/libc.so /tmp/hsperfdata_root/1234 || exit 1
mkdir /tmp/hsperfdata_app && mount --bind /run/host/shared /tmp/hsperfdata_app || exit 1
: > /tmp/ready; exec sleep 300' & C=$!; PIDS="$PIDS $C"
i=0; while [ $i -lt 300 ] && ! [ -e /proc/$C/root/tmp/ready ]; do sleep 0.1; i=$((i+1)); done
echo container=$C
$H audit --no-policy --format json > /tmp/audit.json; echo audit_rc=$?
$H audit --no-policy --verbose > /tmp/audit.txt; echo text_rc=$?
$H repair --dry-run > /tmp/repair.txt; echo repair_rc=$?
)SH" + test::report_v1_in_place("/tmp/audit.json") + R"SH(
python3 - $C <<'PY'
import json, re, sys
pid = sys.argv[1]
r = json.load(open("/tmp/audit.json"))
container = [f for ns in r["namespaces"] if ns["path"].startswith("/proc/" + pid + "/root/")
             for f in ns["findings"] + [g for file in ns["files"] for g in file["findings"]]]
print("container_findings=%d" % len(container))
print("container_rules=" + ",".join(sorted({f["rule"] for f in container})))
bad = [f["rule"] + ": " + c for f in container for c in re.findall(r"`([^`]*)`", f["remediation"])
       if re.match(r"(chmod|chown|setfacl|chattr|unlink|rm) ", c) and ("/proc/" in c or c.startswith("chown"))]
print("host_changing_commands=%d" % len(bad))
for b in bad[:5]: print("bad=" + b)
print("repairable=%d" % sum(1 for f in container if f["repairable"]))
inside = [f for f in container if "Inside the container" in f["remediation"]]
print("inside=%d" % len(inside))
PY
echo text_or_run=$(grep -c "or run: hsperfguard repair" /tmp/audit.txt)
echo text_proc_chmod=$(grep -c 'chmod [^`]*/proc/' /tmp/audit.txt)
echo host_file=$(stat -c %a /run/host/libc.so) host_dir=$(stat -c %a /run/host/shared)
)SH"));
  const std::string& out = o.result.out;
  EXPECT_EQ(o.at("audit_rc"), "1") << out << o.result.err;
  EXPECT_NE(o.at("container_rules").find("mount-boundary"), std::string::npos) << out;
  EXPECT_NE(o.at("container_findings"), "0") << out;
  // Before: chmod 0600 /proc/N/root/tmp/hsperfdata_root/1234, chmod go-w on the bound
  // directory, chown root:root /tmp/hsperfdata_root; "or run: hsperfguard repair".
  EXPECT_EQ(o.at("host_changing_commands"), "0") << out;
  EXPECT_EQ(o.at("repairable"), "0") << out;
  EXPECT_EQ(o.at("text_or_run"), "0") << out;
  EXPECT_EQ(o.at("text_proc_chmod"), "0") << out;
  EXPECT_NE(o.at("inside"), "0") << out;
  EXPECT_EQ(o.at("host_file"), "644");
  EXPECT_EQ(o.at("host_dir"), "1777");
}

}  // namespace
}  // namespace hsperfguard
