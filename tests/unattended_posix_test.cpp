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

// Prints, for each log file given as NAME=PATH, NAME_level, NAME_exit and NAME_events (the
// events of its JSON lines, in order).
const char* kSummaries = R"SH(
summaries() { python3 - "$@" <<'PY'
import json, sys
for arg in sys.argv[1:]:
    name, path = arg.split("=", 1)
    lines = [json.loads(l) for l in open(path) if l.strip()]
    summary = [l for l in lines if l["event"] == "summary"]
    print("%s_events=%s" % (name, ",".join(l["event"] + ":" + l["level"] for l in lines)))
    print("%s_level=%s" % (name, summary[-1]["level"] if summary else "none"))
    print("%s_exit=%s" % (name, summary[-1].get("exit_code", "absent") if summary else "none"))
PY
}
)SH";

// A failing audit's one log line said "level":"info": an audit with findings at or above
// --fail-on (exit 1) is a warning now, one that could not complete (exit 3) an error, and a
// clean one info; the summary says the exit status.
TEST(Unattended, FailingAuditIsLoggedAsAWarningNotInfo) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(std::string(kSummaries) + R"SH(
A="$H audit --no-containers --format json --output /dev/null --log-format json"
chmod 0600 /tmp/t/hsperfdata_nobody/$STALE  # left: empty (medium) and stale (low)
$A --tmpdir /tmp/t --fail-on high 2>/tmp/clean.log; echo clean_rc=$?
chmod 0777 /tmp/t/hsperfdata_nobody
$A --tmpdir /tmp/t --fail-on high 2>/tmp/high.log; echo high_rc=$?
$A --tmpdir /tmp/missing --fail-on high 2>/tmp/missing.log; echo missing_rc=$?
summaries clean=/tmp/clean.log high=/tmp/high.log missing=/tmp/missing.log
)SH");
  EXPECT_EQ(o.at("clean_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("clean_level"), "info") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("clean_exit"), "0");
  EXPECT_EQ(o.at("high_rc"), "1");
  EXPECT_EQ(o.at("high_level"), "warning") << o.at("high_events");
  EXPECT_EQ(o.at("high_exit"), "1");
  EXPECT_EQ(o.at("missing_rc"), "3");
  EXPECT_EQ(o.at("missing_level"), "error") << o.at("missing_events");
  EXPECT_EQ(o.at("missing_exit"), "3");
}

// The reap's summary: info when done, a warning (and one "kept" line each) when it leaves
// entries to a person, an error when a removal failed (an immutable file: nothing in the plan
// could tell) or the run could not complete. A failed removal was only a warning before.
TEST(Unattended, ReapLogLevelFollowsTheOutcome) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(std::string(kSummaries) + R"SH(
R="$H reap --no-containers --no-lock --min-age 0 --format json --output /dev/null --log-format json"
$R --tmpdir /tmp/t 2>/tmp/done.log; echo done_rc=$?
sleep 0 & wait $!; S=/tmp/t/hsperfdata_nobody/$!
: > $S && chown nobody $S && chattr +i $S
$R --tmpdir /tmp/t 2>/tmp/failed.log; echo failed_rc=$?
chattr -i $S
mkdir /tmp/t/hsperfdata_daemon && chown daemon:daemon /tmp/t/hsperfdata_daemon
sleep 0 & wait $!; P=/tmp/t/hsperfdata_daemon/$!
: > $P && chown nobody $P && chmod 0600 $P
$R --tmpdir /tmp/t 2>/tmp/kept.log; echo kept_rc=$?
$R --tmpdir /tmp/missing 2>/tmp/missing.log; echo missing_rc=$?
summaries done=/tmp/done.log failed=/tmp/failed.log kept=/tmp/kept.log missing=/tmp/missing.log
)SH");
  EXPECT_EQ(o.at("done_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("done_events"), "action:info,summary:info");
  EXPECT_EQ(o.at("failed_rc"), "1");
  EXPECT_EQ(o.at("failed_events"), "action:error,summary:error");
  EXPECT_EQ(o.at("failed_exit"), "1");
  EXPECT_EQ(o.at("kept_rc"), "0");
  // The immutable file goes now, nobody's file in daemon's namespace is left to a person.
  EXPECT_EQ(o.at("kept_events"), "action:info,kept:warning,summary:warning");
  EXPECT_EQ(o.at("kept_exit"), "0");
  EXPECT_EQ(o.at("missing_rc"), "3");
  EXPECT_EQ(o.at("missing_level"), "error") << o.at("missing_events");
  EXPECT_EQ(o.at("missing_exit"), "3");
}

// `audit --quiet` with four high findings printed nothing and exited 1: cron mails only what
// a job prints, so nobody heard of it. It prints each finding at or above --fail-on, one line
// with severity, rule, path, message and remedy (names escaped: a name cannot forge or hide
// a line), and nothing else; nothing at all on a clean run.
TEST(Unattended, QuietAuditWithHighFindingsPrintsThemForCron) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
chmod 0600 /tmp/t/hsperfdata_nobody/$STALE  # left: empty (medium) and stale (low)
Q="$H audit --tmpdir /tmp/t --no-containers --fail-on high --quiet --format json --output /tmp/report.json"
$Q > /tmp/clean.out 2> /tmp/clean.err; echo clean_rc=$?
for n in a b c "$(printf 'x\033[2K\ry')"; do mkdir -m 0777 "/tmp/t/hsperfdata_$n"; chmod 0777 "/tmp/t/hsperfdata_$n"; done
$Q > /tmp/high.out 2> /tmp/high.err; echo high_rc=$?
echo clean_bytes=$(cat /tmp/clean.out /tmp/clean.err | wc -c) high_err_bytes=$(wc -c < /tmp/high.err)
echo high_lines=$(wc -l < /tmp/high.out) high_first_words=$(cut -d' ' -f1,2 /tmp/high.out | sort -u | tr '\n' ,)
echo high_fix_lines=$(grep -c '; fix: ' /tmp/high.out) raw_controls=$(tr -d '\n' < /tmp/high.out | tr -d '[:print:]' | wc -c)
echo escaped_name=$(grep -c 'hsperfdata_x\\x1b\[2K\\x0dy: ' /tmp/high.out)
echo report_findings=$(python3 -c 'import json; print(json.load(open("/tmp/report.json"))["summary"]["findings"])')
)SH");
  EXPECT_EQ(o.at("clean_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("clean_bytes"), "0") << "a clean run prints nothing at all";
  EXPECT_EQ(o.at("high_rc"), "1");
  EXPECT_EQ(o.at("high_lines"), "4") << o.result.out;
  EXPECT_EQ(o.at("high_first_words"), "high namespace.group-other-writable,") << "nothing below --fail-on";
  EXPECT_EQ(o.at("high_fix_lines"), "4");
  EXPECT_EQ(o.at("raw_controls"), "0");
  EXPECT_EQ(o.at("escaped_name"), "1") << o.result.out;
  EXPECT_EQ(o.at("high_err_bytes"), "0");
  EXPECT_NE(o.at("report_findings"), "0") << "the report still goes to --output";
}

// `reap --quiet` printed nothing when removals failed. It prints each failed removal and each
// entry left to a person, one line each, and nothing when all is well (removals included).
TEST(Unattended, QuietReapPrintsFailuresAndWhatNeedsAPersonOnly) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
Q="$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --quiet"
$Q > /tmp/done.out 2>&1; echo done_rc=$? stale_left=$(stale_left)
sleep 0 & wait $!; S=/tmp/t/hsperfdata_nobody/$!
: > $S && chown nobody $S && chattr +i $S
mkdir /tmp/t/hsperfdata_daemon && chown daemon:daemon /tmp/t/hsperfdata_daemon
sleep 0 & wait $!; P=/tmp/t/hsperfdata_daemon/$!
: > $P && chown nobody $P && chmod 0600 $P
$Q > /tmp/bad.out 2> /tmp/bad.err; echo bad_rc=$?
chattr -i $S
echo done_bytes=$(wc -c < /tmp/done.out) bad_lines=$(wc -l < /tmp/bad.out) bad_err_bytes=$(wc -c < /tmp/bad.err)
echo failed_line=$(grep -c "^failed $S: unlinkat: Operation not permitted\$" /tmp/bad.out)
echo kept_line=$(grep -c "^kept $P (not-permitted): Owned by uid 65534" /tmp/bad.out)
)SH");
  EXPECT_EQ(o.at("done_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("stale_left"), "no");
  EXPECT_EQ(o.at("done_bytes"), "0") << "a removal is routine: nothing to mail";
  EXPECT_EQ(o.at("bad_rc"), "1");
  EXPECT_EQ(o.at("bad_lines"), "2") << o.result.out;
  EXPECT_EQ(o.at("failed_line"), "1") << o.result.out;
  EXPECT_EQ(o.at("kept_line"), "1") << o.result.out;
  EXPECT_EQ(o.at("bad_err_bytes"), "0");
}

}  // namespace
}  // namespace hsperfguard
