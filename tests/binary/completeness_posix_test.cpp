// What an unprivileged run says of its completeness, run as nobody (setpriv) against a temp
// dir holding other users' 0700 namespaces, in a private mount namespace with its own /tmp
// (hostile_support.hpp): the exit status, the JSON's complete and not_looked_at, the metrics'
// success gauge, the text's one line; --user scoping the run to nobody's own namespace; and
// --container naming no process. The scripts print key=value lines; the assertions are here.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

// As nobody: root's and daemon's 0700 namespaces cannot be opened. Before, the audit printed
// their "openat: Permission denied", then "clean ... (exit 0)" and "complete": true, and the
// default run skipped containers without a word; the reap said complete too.
TEST(UnprivilegedRun, CannotOpenOtherUsersNamespacesAndSaysSoInOneLine) {
  SKIP_UNLESS_ROOT();
  const std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  const Outcome o = run_case("B='" + test::tool_path() + "'; N='" + nobody + "'\n" + R"SH(
for u in root daemon; do
  mkdir /tmp/t/hsperfdata_$u
  sleep 0 & wait $!; : > /tmp/t/hsperfdata_$u/$!
  chown -R $u /tmp/t/hsperfdata_$u && chmod 0700 /tmp/t/hsperfdata_$u
done
chmod 1777 /tmp/t
ROOTS=$(ls /tmp/t/hsperfdata_root)
# --fail-on critical: nobody's empty stale file is a finding of its own, not what is tested.
$N $B audit --tmpdir /tmp/t --no-policy --no-containers --fail-on critical > /tmp/a.txt 2> /tmp/a.err; echo audit_rc=$?
# The JVMs it looked at are the host's (its /proc): a JVM another test runs as nobody is one.
echo audit_last=$(tail -n 1 /tmp/a.txt | sed 's/^\(.* dir, \)[0-9][0-9]* \(JVM process\)/\1N \2/')
$N $B audit --tmpdir /tmp/t --no-policy --format json --metrics /tmp/a.prom > /tmp/a.json 2> /tmp/a.err; echo json_rc=$?
python3 - <<'PY'
import json
r = json.load(open("/tmp/a.json"))
print("complete=%s" % r["complete"])
print("namespaces_missing=%d" % r["not_looked_at"]["namespaces"])
for line in open("/tmp/a.prom"):
    if line.startswith("hsperfguard_audit_last_run_success"):
        print("success_gauge=%s" % line.split()[-1])
PY
$N $B audit --tmpdir /tmp/t --no-policy --fail-on critical --user nobody --format json > /tmp/u.json 2> /tmp/u.err; echo user_rc=$?
python3 -c 'import json; r = json.load(open("/tmp/u.json")); print("user_complete=%s user_scope=%s user_namespaces=%d" % (r["complete"], r["scope"]["user"], len(r["namespaces"])))'
mkdir /tmp/hsperfdata_root && chmod 0700 /tmp/hsperfdata_root
$N $B audit --no-policy > /tmp/d.txt 2> /tmp/d.err; echo default_rc=$?
echo default_last=$(tail -n 1 /tmp/d.txt)
$N $B reap --tmpdir /tmp/t --no-lock --min-age 0 > /tmp/r.txt 2> /tmp/r.err; echo reap_rc=$?
echo reap_last=$(tail -n 1 /tmp/r.txt)
echo root_file_left=$([ -e /tmp/t/hsperfdata_root/$ROOTS ] && echo yes || echo no) stale_left=$(stale_left)
$N $B reap --tmpdir /tmp/t --no-lock --min-age 0 --user nobody > /tmp/ru.txt 2> /tmp/ru.err; echo reap_user_rc=$?
sleep 0 & wait $!; GONE=$!
$N $B audit --container $GONE > /tmp/c.txt 2> /tmp/c.err; echo container_rc=$?
echo container_out_lines=$(wc -l < /tmp/c.txt) container_err_lines=$(wc -l < /tmp/c.err)
echo container_err=$(sed "s/ $GONE:/ GONE:/" /tmp/c.err)
)SH");
  EXPECT_EQ(o.at("audit_rc"), "3") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("audit_last"),
            "3 namespace(s), 1 file(s), 0 attach file(s) in 1 temp dir, N JVM process(es) looked at; "
            "INCOMPLETE: not root: 2 namespaces unreadable: run as root, or --user NAME for your own "
            "namespaces only (exit 3)")
      << o.result.out;
  EXPECT_EQ(o.at("json_rc"), "3");
  EXPECT_EQ(o.at("complete"), "False");
  EXPECT_EQ(o.at("namespaces_missing"), "2");
  EXPECT_EQ(o.at("success_gauge"), "0");
  // Her own namespace only: complete.
  EXPECT_EQ(o.at("user_rc"), "0") << o.result.out;
  EXPECT_EQ(o.at("user_complete"), "True");
  EXPECT_EQ(o.at("user_scope"), "nobody");
  EXPECT_EQ(o.at("user_namespaces"), "1");
  // The default run: containers were not scanned, and it says so.
  EXPECT_EQ(o.at("default_rc"), "3");
  EXPECT_NE(o.at("default_last").find("INCOMPLETE: not root: 1 namespace unreadable, containers not scanned: run "
                                      "as root, or --user NAME for your own namespaces only (exit 3)"),
            std::string::npos)
      << o.at("default_last");
  // The reap removed nobody's own stale file, touched nothing it could not look at, and does
  // not claim to be complete.
  EXPECT_EQ(o.at("reap_rc"), "3") << o.result.out;
  EXPECT_EQ(o.at("reap_last"),
            "exit 3: INCOMPLETE: not root: 2 namespaces unreadable: run as root, or --user NAME for your "
            "own namespaces only");
  EXPECT_EQ(o.at("root_file_left"), "yes");
  EXPECT_EQ(o.at("stale_left"), "no");
  EXPECT_EQ(o.at("reap_user_rc"), "0");
  // --container naming no process: a usage error, one line.
  EXPECT_EQ(o.at("container_rc"), "2");
  EXPECT_EQ(o.at("container_out_lines"), "0");
  EXPECT_EQ(o.at("container_err_lines"), "1");
  EXPECT_EQ(o.at("container_err"), "hsperfguard: audit: --container GONE: no such process");
}

}  // namespace
}  // namespace hsperfguard
