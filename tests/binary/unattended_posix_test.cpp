// Unattended runs as operators run them (cron, systemd timers, alerting): what the exit status,
// the output and the log say, and that a run does not fail for good over what only a person
// can settle. One test per case, named after it; each runs the binary as root in a private
// mount namespace with its own /tmp, /run and /dev (hostile_support.hpp), so that nothing of
// the host is touched. The scripts print key=value lines; the assertions are here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
  const Outcome o = run_case("VALIDATE='" + test::source_path("tests/support/validate_json.py") + "' SCHEMA='" +
                             test::source_path("schemas/report.schema.json") + "'" + R"SH(
NS=/tmp/t/hsperfdata_daemon
mkdir $NS && chown daemon:daemon $NS
sleep 0 & wait $!; P=$!
: > $NS/$P && chown nobody:nogroup $NS/$P && chmod 0600 $NS/$P
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --dry-run --format json --output /tmp/dry.json; echo dry_rc=$?
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --format json --output /tmp/real.json --metrics /tmp/reap.prom; echo real_rc=$?
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --format json --output /tmp/again.json --metrics /tmp/reap.prom; echo again_rc=$?
echo planted_left=$([ -e $NS/$P ] && echo yes || echo no) stale_left=$(stale_left)
/usr/bin/python3 "$VALIDATE" "$SCHEMA" /tmp/dry.json /tmp/real.json; echo schema_rc=$?
python3 - $NS/$P <<'PY'
import json, sys
planted = sys.argv[1]
print("planted=%s" % planted)
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
    // As daemon (uid 1, gid 1), the namespace's owner.
    EXPECT_NE(o.at(r + "_remediation").find("`setpriv --reuid=1 --regid=1 --clear-groups -- rm -- " +
                                            o.at("planted") + "`"),
              std::string::npos)
        << r << ": " << o.at(r + "_remediation");
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
  EXPECT_EQ(o.at("schema_rc"), "0") << "the reports, remediation included, are valid: " << o.result.err;
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
ln -s /tmp/t /tmp/linked  # a temp dir is never followed: the run cannot complete
$A --tmpdir /tmp/linked --fail-on high 2>/tmp/unopened.log; echo unopened_rc=$?
summaries clean=/tmp/clean.log high=/tmp/high.log unopened=/tmp/unopened.log
)SH");
  EXPECT_EQ(o.at("clean_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("clean_level"), "info") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("clean_exit"), "0");
  EXPECT_EQ(o.at("high_rc"), "1");
  EXPECT_EQ(o.at("high_level"), "warning") << o.at("high_events");
  EXPECT_EQ(o.at("high_exit"), "1");
  EXPECT_EQ(o.at("unopened_rc"), "3");
  EXPECT_EQ(o.at("unopened_level"), "error") << o.at("unopened_events");
  EXPECT_EQ(o.at("unopened_exit"), "3");
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
ln -s /tmp/t /tmp/linked  # a temp dir is never followed: the run cannot complete
$R --tmpdir /tmp/linked 2>/tmp/unopened.log; echo unopened_rc=$?
summaries done=/tmp/done.log failed=/tmp/failed.log kept=/tmp/kept.log unopened=/tmp/unopened.log
)SH");
  EXPECT_EQ(o.at("done_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("done_events"), "action:info,summary:info");
  EXPECT_EQ(o.at("failed_rc"), "1");
  EXPECT_EQ(o.at("failed_events"), "action:error,summary:error");
  EXPECT_EQ(o.at("failed_exit"), "1");
  EXPECT_EQ(o.at("kept_rc"), "0");
  // The immutable file goes now, nobody's file in daemon's namespace is left to a person. The
  // lines come part by part in the plan's order (each part's actions, then its kept entries):
  // hsperfdata_daemon's before hsperfdata_nobody's.
  EXPECT_EQ(o.at("kept_events"), "kept:warning,action:info,summary:warning");
  EXPECT_EQ(o.at("kept_exit"), "0");
  EXPECT_EQ(o.at("unopened_rc"), "3");
  EXPECT_EQ(o.at("unopened_level"), "error") << o.at("unopened_events");
  EXPECT_EQ(o.at("unopened_exit"), "3");
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
echo exit_line=$(tail -n 1 /tmp/bad.out)
)SH");
  EXPECT_EQ(o.at("done_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("stale_left"), "no");
  EXPECT_EQ(o.at("done_bytes"), "0") << "a removal is routine: nothing to mail";
  EXPECT_EQ(o.at("bad_rc"), "1");
  EXPECT_EQ(o.at("bad_lines"), "3") << o.result.out;
  EXPECT_EQ(o.at("failed_line"), "1") << o.result.out;
  EXPECT_EQ(o.at("kept_line"), "1") << o.result.out;
  // The last line says why the status is not 0, under --quiet too.
  EXPECT_EQ(o.at("exit_line"), "exit 1: 1 removal failed (the actions say why)") << o.result.out;
  EXPECT_EQ(o.at("bad_err_bytes"), "0");
}

// ---- the shipped cron job --------------------------------------------------------------------

// The job lines of packaging/cron.d/hsperfguard, as cron reads them: the command of each (what
// follows the five time fields and the user) by its subcommand, and the PATH the file sets.
struct CronFile {
  std::string path_line;
  std::vector<std::string> commands;
  std::string command_of(const std::string& subcommand) const {
    for (const auto& c : commands) {
      if (c.find("hsperfguard " + subcommand + " ") != std::string::npos) return c;
    }
    return "";
  }
};

CronFile read_cron_file() {
  CronFile cron;
  std::ifstream in(test::source_path("packaging/cron.d/hsperfguard"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("PATH=")) cron.path_line = line.substr(5);
    if (line.find('=') != std::string::npos && line.find(' ') > line.find('=')) continue;  // NAME=value
    std::istringstream fields(line);
    std::string field;
    for (int i = 0; i < 6 && fields >> field; ++i) {
    }
    std::string command;
    std::getline(fields >> std::ws, command);
    cron.commands.push_back(command);
  }
  return cron;
}

// What cron does with a job, in the private mount namespace and a pid namespace of its own
// (the reap and the audit look into every container's /tmp as root: here they see only this
// test's processes): `sh -c COMMAND` with the file's PATH, in front of which a directory
// holds `hsperfguard` (the binary under test), /var/lib and /var/log on tmpfs, /etc on an
// overlay (the shipped policy copied to /etc/hsperfguard), and a receiver on /dev/log that records each
// syslog message. cron_job NAME COMMAND-FILE prints NAME_rc, and leaves NAME.mail (stdout and
// stderr: what cron mails) and NAME.syslog (one message a line) in /tmp.
std::string cron_setup(const CronFile& cron) {
  return R"SH(
mkdir -p /tmp/bin /var/lib /var/log
cp /proc/$$/fd/9 /tmp/bin/hsperfguard && chmod 0755 /tmp/bin/hsperfguard  # /proc/$$ is not in the jobs' pid namespace
mount -t tmpfs tmpfs /var/lib && mount -t tmpfs tmpfs /var/log || exit 99
# /etc/hsperfguard on an overlay of /etc, so that the host's /etc is never written (not even
# an empty directory left behind, which the package test would take for an unpurged one).
mount -t tmpfs tmpfs /mnt && mkdir /mnt/upper /mnt/work || exit 99
mount -t overlay overlay -o lowerdir=/etc,upperdir=/mnt/upper,workdir=/mnt/work /etc || exit 99
mkdir -p /etc/hsperfguard || exit 99
cp ')SH" + test::source_path("packaging/policy.json") + R"SH(' /etc/hsperfguard/policy.json
CRON_PATH=')SH" + cron.path_line + R"SH('
cron_job() {
  rm -f /tmp/syslog.ready
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
open("/tmp/syslog.ready", "w").close()
with open(sys.argv[1], "wb") as out:
    while True:
        m = s.recv(1 << 20)
        if m == b"END":
            break
        out.write(m + b"\n")
' "/tmp/$1.syslog" &
  RECEIVER=$!
  while [ ! -e /tmp/syslog.ready ]; do sleep 0.05; done
  env -i SHELL=/bin/sh HOME=/root LOGNAME=root PATH="/tmp/bin:$CRON_PATH" \
    unshare --pid --fork --mount-proc /bin/sh -c "$(cat "$2")" > "/tmp/$1.mail" 2>&1
  echo "$1_rc=$?"
  python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"END", "/dev/log")'
  wait $RECEIVER
  rm -f /dev/log
}
# Prints NAME_messages (count), NAME_priorities (facility.priority of each), NAME_events
# (event:level of each JSON line) and NAME_exit (the summary's exit_code).
syslog_summary() { python3 - "$1" <<'PY'
import json, re, sys
name = sys.argv[1]
prios, events, exit_code = [], [], "none"
for raw in open("/tmp/%s.syslog" % name, encoding="utf-8", errors="replace"):
    m = re.match(r"<(\d+)>.*? hsperfguard-(\w+)\[\d+\]: (.*)$", raw.rstrip("\n"))
    if not m:
        prios.append("unparsed")
        continue
    pri = int(m.group(1))
    prios.append("%d.%d" % (pri >> 3, pri & 7))
    line = json.loads(m.group(3))
    events.append("%s:%s" % (line["event"], line["level"]))
    if line["event"] == "summary":
        exit_code = line.get("exit_code", "absent")
print("%s_messages=%d" % (name, len(prios)))
print("%s_priorities=%s" % (name, ",".join(prios)))
print("%s_events=%s" % (name, ",".join(events)))
print("%s_exit=%s" % (name, exit_code))
PY
}
)SH";
}

// The packaged cron line ended in `2>&1 | logger`: cron saw logger's exit status, never the
// reap's. The jobs run exactly as the file says them (parsed out of it): a reap that succeeds
// exits 0 and neither mails nor logs anything; one that cannot run (its journal is not a
// journal of ours) exits 3, mails the error and logs it at priority err; an audit with a high
// finding exits 1, mails the finding and logs a warning summary saying exit 1.
TEST(Unattended, CronJobsKeepTheirExitStatusAndStillLog) {
  SKIP_UNLESS_ROOT();
  const CronFile cron = read_cron_file();
  const std::string reap = cron.command_of("reap");
  std::string audit = cron.command_of("audit");
  ASSERT_FALSE(reap.empty()) << "no reap job in packaging/cron.d/hsperfguard";
  EXPECT_FALSE(audit.empty()) << "no audit job in packaging/cron.d/hsperfguard";
  if (audit.empty()) audit = "exit 99";
  ASSERT_FALSE(cron.path_line.empty());
  for (const std::string& job : {reap, audit}) {
    EXPECT_EQ(job.find('%'), std::string::npos) << "cron turns % into a newline: " << job;
  }
  const Outcome o = run_case(cron_setup(cron) + "cat > /tmp/reap.job <<'CRONJOB'\n" + reap +
                             "\nCRONJOB\ncat > /tmp/audit.job <<'CRONJOB'\n" + audit + "\nCRONJOB\n" + R"SH(
rm -rf /tmp/t
mkdir /tmp/hsperfdata_nobody && chown nobody:nogroup /tmp/hsperfdata_nobody
sleep 0 & wait $!; Y=/tmp/hsperfdata_nobody/$!
: > $Y && chown nobody:nogroup $Y && chmod 0600 $Y   # stale, but younger than --min-age
cron_job reap_ok /tmp/reap.job
echo young_left=$([ -e $Y ] && echo yes || echo no)
echo reap_report=$(python3 -c 'import json; r = json.load(open("/var/lib/hsperfguard/reap.json")); print(r["plan"][0]["why"])')
echo 'not a journal' > /var/log/hsperfguard/reap.jsonl
cron_job reap_broken /tmp/reap.job
cron_job audit_ok /tmp/audit.job
chmod 0777 /tmp/hsperfdata_nobody
cron_job audit_high /tmp/audit.job
for n in reap_ok reap_broken audit_ok audit_high; do
  echo ${n}_mail_lines=$(wc -l < /tmp/$n.mail)
  syslog_summary $n
done
echo reap_broken_mail=$(head -1 /tmp/reap_broken.mail)
echo audit_high_mail=$(cut -d' ' -f1-3 /tmp/audit_high.mail)
)SH");
  // Succeeds: exit 0, nothing mailed, nothing logged; the report was written.
  EXPECT_EQ(o.at("reap_ok_rc"), "0") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("reap_ok_mail_lines"), "0");
  EXPECT_EQ(o.at("reap_ok_messages"), "0") << o.at("reap_ok_events");
  EXPECT_EQ(o.at("reap_report"), "too-young");
  EXPECT_EQ(o.at("young_left"), "yes");
  // Cannot run: exit 3 as cron sees it, the error mailed and logged at priority err (3.3:
  // facility daemon, err).
  EXPECT_EQ(o.at("reap_broken_rc"), "3");
  EXPECT_NE(o.at("reap_broken_mail").find("/var/log/hsperfguard/reap.jsonl"), std::string::npos)
      << o.at("reap_broken_mail");
  EXPECT_EQ(o.at("reap_broken_priorities"), "3.3");
  EXPECT_EQ(o.at("reap_broken_events"), "error:error");
  // The audit: clean is silent; a high finding is exit 1, mailed, and a warning (3.4) saying so.
  EXPECT_EQ(o.at("audit_ok_rc"), "0");
  EXPECT_EQ(o.at("audit_ok_mail_lines"), "0");
  EXPECT_EQ(o.at("audit_ok_messages"), "0");
  EXPECT_EQ(o.at("audit_high_rc"), "1");
  EXPECT_EQ(o.at("audit_high_mail_lines"), "1");
  EXPECT_EQ(o.at("audit_high_mail"), "high namespace.group-other-writable /tmp/hsperfdata_nobody:");
  EXPECT_EQ(o.at("audit_high_priorities"), "3.4");
  EXPECT_EQ(o.at("audit_high_events"), "summary:warning");
  EXPECT_EQ(o.at("audit_high_exit"), "1");
}

// --syslog where nothing receives the messages (a container, a cron-only host without a log
// daemon): syslog(3) would drop every line without a word, and the run used to do nothing and
// exit 3, so the packaged cron reap failed there every 15 minutes. The lines now go to standard
// error, which cron mails, after one line that says so; the run does its work. The reap runs
// as the cron line does (--quiet --log-format json --syslog).
TEST(Unattended, SyslogWithoutALogDaemonWritesTheLinesToStandardErrorAndSaysSoOnce) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
echo dev_log=$([ -e /dev/log ] && echo yes || echo no)
$H reap --tmpdir /tmp/t --no-containers --no-lock --min-age 0 --quiet --log-format json --syslog >/tmp/out 2>/tmp/err; echo rc=$? stale_left=$(stale_left)
echo out_bytes=$(wc -c < /tmp/out)
echo said=$(grep -c 'standard error instead' /tmp/err)
echo said_line=$(grep 'standard error instead' /tmp/err)
python3 - <<'PY'
import json
events = []
for line in open("/tmp/err"):
    if line.startswith("{"):
        events.append(json.loads(line)["event"])
print("json_events=%s" % ",".join(events))
PY
)SH");
  EXPECT_EQ(o.at("dev_log"), "no") << "the case runs with a /dev of its own";
  EXPECT_EQ(o.at("rc"), "0") << o.result.out << o.result.err;
  EXPECT_EQ(o.at("stale_left"), "no") << "the run did its work";
  EXPECT_EQ(o.at("out_bytes"), "0") << "--quiet: nothing on stdout";
  EXPECT_EQ(o.at("said"), "1") << "said once";
  EXPECT_EQ(o.at("said_line"),
            "hsperfguard: reap: --syslog: /dev/log: connect: No such file or directory: no system log "
            "receives messages here; the log lines go to standard error instead");
  EXPECT_EQ(o.at("json_events"), "action") << "the removal's log line, on stderr (--quiet: no summary when all is well)";
}

// A reader that closes the tool's standard output (`| head`, a pager quit, a log shipper that
// died) ended the run with SIGPIPE: exit 141, which no exit code of the tool means, and a
// reap killed wherever it was. Writes now fail instead; the command finishes what it does
// (the reap's removals are journaled and logged) and says its output was cut: exit 3. The
// pipe's read end is closed before the tool starts, so its first write meets it.
TEST(Unattended, ReaderClosingStandardOutputIsAnIncompleteRunNotSigpipe) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
/usr/bin/python3 - "$H" <<'PY'
import os, subprocess, sys
h = sys.argv[1]
def closed(name, args):
    r, w = os.pipe()
    os.close(r)
    p = subprocess.run([h] + args, stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    said = b"cannot write to standard output" in p.stderr
    print("%s_rc=%d %s_said=%s" % (name, p.returncode, name, said))
closed("audit", ["audit", "--tmpdir", "/tmp/t", "--no-containers", "--format", "text"])
closed("reap", ["reap", "--tmpdir", "/tmp/t", "--no-containers", "--min-age", "0", "--no-lock", "--format", "text"])
PY
echo stale=$(stale_left)
)SH");
  EXPECT_EQ(o.at("audit_rc"), "3") << "not killed by SIGPIPE (-13)" << o.result.err;
  EXPECT_EQ(o.at("audit_said"), "True");
  EXPECT_EQ(o.at("reap_rc"), "3") << "not killed by SIGPIPE (-13)" << o.result.err;
  EXPECT_EQ(o.at("reap_said"), "True");
  EXPECT_EQ(o.at("stale"), "no") << "the reap did its work before saying its output was cut";
}

}  // namespace
}  // namespace hsperfguard
