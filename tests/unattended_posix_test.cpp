// Unattended runs as operators run them (cron, systemd timers, alerting): what the exit status,
// the output and the log say, and that a run does not fail for good over what only a person
// can settle. One test per case, named after it; each runs the binary as root in a private
// mount namespace with its own /tmp, /run and /dev (hostile_support.hpp), so that nothing of
// the host is touched. The scripts print key=value lines; the assertions are here.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

// A stale file owned by another user inside a namespace (nobody's in daemon's): the reaper
// acts there as daemon, who may not open it (0600) to take its lock. It was planned "remove"
// by the dry run, then failed with "openat: Permission denied" on every real run (exit 1 every
// 15 minutes, HsperfguardReapFailedRemovals firing for good). The plan now keeps it, with the
// reason and the remedy, in the dry run and the real run alike; the run succeeds.
TEST(Unattended, AnotherUsersFileInANamespaceIsLeftToAPersonNotFailedForever) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
NS=/tmp/t/hsperfdata_daemon
mkdir $NS && chown daemon:daemon $NS
sleep 0 & wait $!; P=$!
: > $NS/$P && chown nobody:nogroup $NS/$P && chmod 0600 $NS/$P
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --dry-run --format json --output /tmp/dry.json; echo dry_rc=$?
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --format json --output /tmp/real.json --metrics /tmp/reap.prom; echo real_rc=$?
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --format json --output /tmp/again.json --metrics /tmp/reap.prom; echo again_rc=$?
echo planted_left=$([ -e $NS/$P ] && echo yes || echo no) stale_left=$(stale_left)
python3 - $NS/$P <<'PY'
import json, sys
planted = sys.argv[1]
for run in ("dry", "real", "again"):
    r = json.load(open("/tmp/%s.json" % run))
    item = [i for i in r["plan"] if i["path"] == planted][0]
    print("%s_action=%s" % (run, item["action"]))
    print("%s_why=%s" % (run, item["why"]))
    print("%s_verdict=%s" % (run, item["verdict"]))
    print("%s_remediation=%s" % (run, item["remediation"]))
    print("%s_attempted=%s" % (run, any(a["path"] == planted for a in r["actions"])))
    if r["reap"]["outcomes"] is not None:
        print("%s_failed=%d" % (run, r["reap"]["outcomes"]["failed"]))
m = {}
for line in open("/tmp/reap.prom"):
    if not line.startswith("#"):
        k, v = line.rsplit(" ", 1)
        m[k] = float(v)
print("failed_total=%g" % m['hsperfguard_reap_files_total{outcome="failed"}'])
print("kept_not_permitted=%g" % m['hsperfguard_reap_kept_entries{why="not-permitted"}'])
print("last_success=%g" % m["hsperfguard_reap_last_run_success"])
PY
)SH");
  for (const char* run : {"dry", "real", "again"}) {
    const std::string r = run;
    EXPECT_EQ(o.at(r + "_action"), "keep") << r << "\n" << o.result.out << o.result.err;
    EXPECT_EQ(o.at(r + "_why"), "not-permitted") << r;
    EXPECT_EQ(o.at(r + "_verdict"), "stale") << r;
    EXPECT_NE(o.at(r + "_remediation").find("Owned by uid 65534, not by uid 1"), std::string::npos)
        << r << ": " << o.at(r + "_remediation");
    EXPECT_NE(o.at(r + "_remediation").find("rm -- <path>"), std::string::npos) << r;
    EXPECT_EQ(o.at(r + "_attempted"), "False") << r << ": the plan promised nothing it could not do";
  }
  EXPECT_EQ(o.at("dry_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("real_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("again_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("real_failed"), "0");
  EXPECT_EQ(o.at("again_failed"), "0");
  EXPECT_EQ(o.at("failed_total"), "0") << "HsperfguardReapFailedRemovals would fire";
  EXPECT_EQ(o.at("kept_not_permitted"), "1") << "what is left to a person shows";
  EXPECT_EQ(o.at("last_success"), "1");
  EXPECT_EQ(o.at("planted_left"), "yes") << "never removed on doubt";
  EXPECT_EQ(o.at("stale_left"), "no") << "nobody's own stale file still goes";
}

}  // namespace
}  // namespace hsperfguard
