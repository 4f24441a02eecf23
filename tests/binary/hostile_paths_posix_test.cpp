// Hostile input: the paths the tool is given (--tmpdir, --root, --output, --metrics, --journal,
// --lock-file) against local users who own a directory or a link somewhere in them. One test
// per attack, named after it, each run as root in a private mount namespace with its own /tmp,
// /run and /dev (hostile_support.hpp). Every one of them fails with the build before the one
// path walk (platform::walk_path) and the lock file's marker.
#include <gtest/gtest.h>

#include <string>

#include "hostile_support.hpp"

namespace hsperfguard {
namespace {

using hostile::Outcome;
using hostile::run_case;

// A decoy system directory (root's, like /etc), a stale file of nobody's in a namespace in it,
// and /tmp/alice, a directory of nobody's (uid 65534: "alice").
const char* kDecoy = R"SH(
DECOY=/run/decoy
mkdir -p $DECOY/etc/cron.d/hsperfdata_nobody $DECOY/tmp/hsperfdata_nobody && chmod 1777 $DECOY/tmp
grep -E '^(root|daemon|nobody):' /etc/passwd > $DECOY/etc/passwd
for ns in $DECOY/etc/cron.d/hsperfdata_nobody $DECOY/tmp/hsperfdata_nobody; do
  chown nobody $ns && : > $ns/$STALE && chown nobody $ns/$STALE
done
decoy_stale() { [ -e $DECOY/$1/hsperfdata_nobody/$STALE ] && echo yes || echo no; }
mkdir /tmp/alice && chown nobody /tmp/alice
# create, audit and reap with OPTION DIR (--tmpdir or --root): each one's exit code, and how
# many lines of its errors say TEXT.
through() {
  $H create --user daemon $1 $2 > /dev/null 2> /tmp/create.err; echo create_rc=$?
  $H audit $1 $2 --no-containers --format json > /dev/null 2> /tmp/audit.err; echo audit_rc=$?
  $H reap $1 $2 --no-containers --min-age 0 --no-lock --format json > /dev/null 2> /tmp/reap.err; echo reap_rc=$?
  for c in create audit reap; do echo "said_$c=$(grep -c "$3" /tmp/$c.err)"; done
}
)SH";

// What through() printed: create, audit and reap each refused (exit 3) and said why.
void expect_all_refused(const Outcome& o) {
  for (const std::string c : {"create", "audit", "reap"}) {
    EXPECT_EQ(o.at(c + "_rc"), "3") << c << ": " << o.result.err;
    EXPECT_NE(o.at("said_" + c), "0") << c << ": the error names the component and why; " << o.result.err;
  }
}

// ---- case 6: another user's symbolic link in --tmpdir or --root ---------------------------

// /tmp/alice/app, alice's link to a decoy /etc: `create --tmpdir /tmp/alice/app/cron.d` made
// hsperfdata_daemon inside the decoy's cron.d; audit and reap worked there too.
TEST(HostileInput, TmpdirThroughAnotherUsersSymlinkReachesNothing) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(std::string(kDecoy) + R"SH(
ln -s $DECOY/etc /tmp/alice/app && chown -h nobody /tmp/alice/app
through --tmpdir /tmp/alice/app/cron.d '/tmp/alice/app is a symbolic link owned by uid 65534: not followed'
echo made=$(ls $DECOY/etc/cron.d | grep -c daemon) decoy_stale=$(decoy_stale etc/cron.d)
)SH");
  expect_all_refused(o);
  EXPECT_EQ(o.at("made"), "0") << "nothing made in the decoy";
  EXPECT_EQ(o.at("decoy_stale"), "yes") << "nothing removed in the decoy";
}

// The same link as a system root: /tmp/alice/sys -> the decoy, `--root /tmp/alice/sys`.
TEST(HostileInput, RootThroughAnotherUsersSymlinkReachesNothing) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(std::string(kDecoy) + R"SH(
ln -s $DECOY /tmp/alice/sys && chown -h nobody /tmp/alice/sys
through --root /tmp/alice/sys '/tmp/alice/sys is a symbolic link owned by uid 65534: not followed'
echo made=$(ls $DECOY/tmp | grep -c daemon) decoy_stale=$(decoy_stale tmp)
)SH");
  expect_all_refused(o);
  EXPECT_EQ(o.at("made"), "0") << "nothing made in the decoy";
  EXPECT_EQ(o.at("decoy_stale"), "yes") << "nothing removed in the decoy";
}

// ---- case 13: root's link or directory inside a user's directory --------------------------

// A link root owns, in alice's directory (root made it there, or alice moved it in from a
// directory she may write): alice can replace it at any time, so it is hers to aim. The same
// for a directory of root's inside hers: she can swap it for another.
TEST(HostileInput, TmpdirThroughRootsLinkInAUsersDirectoryIsNotFollowed) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(std::string(kDecoy) + R"SH(
ln -s $DECOY/etc /tmp/alice/app
through --tmpdir /tmp/alice/app/cron.d '/tmp/alice/app is a symbolic link in /tmp/alice, a directory owned by uid 65534: not followed'
mkdir /tmp/alice/moved && mv $DECOY/etc/cron.d/hsperfdata_nobody /tmp/alice/moved/
$H reap --tmpdir /tmp/alice/moved --no-containers --min-age 0 --no-lock --format json > /dev/null 2> /tmp/moved.err; echo moved_rc=$?
echo made=$(ls $DECOY/etc/cron.d | grep -c daemon) moved_stale=$([ -e /tmp/alice/moved/hsperfdata_nobody/$STALE ] && echo yes || echo no)
echo named_moved=$(grep -c '/tmp/alice/moved is owned by uid 0 inside /tmp/alice, a directory owned by uid 65534' /tmp/moved.err)
)SH");
  expect_all_refused(o);
  EXPECT_EQ(o.at("moved_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("made"), "0");
  EXPECT_EQ(o.at("moved_stale"), "yes");
  EXPECT_EQ(o.at("named_moved"), "1") << o.result.err;
}

// The output walk checked only the owner of the last directory: root's link or root's
// directory inside alice's directory still routed a report, the metrics, the journal and the
// lock. Every directory on the way must now be root's or ours (which covers the directory
// that holds a link), and the error names the one that is not.
TEST(HostileInput, OutputThroughRootsLinkOrDirectoryInAUsersDirectoryIsRefused) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(std::string(kDecoy) + R"SH(
ln -s $DECOY/etc/cron.d /tmp/alice/out
mkdir /tmp/alice/reports
$H audit --tmpdir /tmp/t --no-containers --output /tmp/alice/out/job 2> /tmp/link.err; echo link_rc=$?
$H audit --tmpdir /tmp/t --no-containers --output /tmp/alice/reports/report.json 2> /tmp/dir.err; echo dir_rc=$?
$H audit --tmpdir /tmp/t --no-containers --format json --metrics /tmp/alice/reports/m.prom > /dev/null; echo metrics_rc=$?
$H reap --tmpdir /tmp/t --no-containers --min-age 0 --no-lock --journal /tmp/alice/reports/journal --format json > /dev/null; echo journal_rc=$?
$H reap --tmpdir /tmp/t --no-containers --min-age 0 --lock-file /tmp/alice/reports/reap.lock --format json > /dev/null; echo lock_rc=$?
echo decoy=$(ls -A $DECOY/etc/cron.d | grep -vc hsperfdata_nobody) reports=$(ls -A /tmp/alice/reports | wc -l) stale=$(stale_left)
echo named_link=$(grep -c '/tmp/alice is a directory owned by uid 65534' /tmp/link.err)
echo named_dir=$(grep -c '/tmp/alice is a directory owned by uid 65534' /tmp/dir.err)
)SH");
  EXPECT_EQ(o.at("link_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("dir_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("metrics_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("journal_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("lock_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("decoy"), "0") << "nothing written through the link";
  EXPECT_EQ(o.at("reports"), "0") << "nothing written in the directory alice can swap";
  EXPECT_EQ(o.at("stale"), "yes") << "nothing reaped without its journal and lock";
  EXPECT_EQ(o.at("named_link"), "1") << o.result.err;
  EXPECT_EQ(o.at("named_dir"), "1") << o.result.err;
}

// ---- case 7: opened read-write before its type was known ----------------------------------

// The journal and the lock file were opened O_RDWR and only then refused by their type: on
// /dev/watchdog that open alone arms a reboot. A character device (here /dev/null's numbers)
// is now looked at with O_PATH only: strace shows no other open of its name.
TEST(HostileInput, JournalOrLockFileNamingACharacterDeviceIsNeverOpened) {
  SKIP_UNLESS_ROOT();
  if (!test::have_program("strace")) GTEST_FAIL() << "strace is needed (apt-get install strace)";
  const Outcome o = run_case(R"SH(
mkdir /run/d && mknod -m 0600 /run/d/watchdog c 1 3
# LeakSanitizer cannot run under ptrace (the sanitizer builds): leaks are not this test's question.
trace() { out=$1; shift; ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=open,openat,openat2,creat -o $out "$@"; }
trace /tmp/lock.trace $H reap --tmpdir /tmp/t --no-containers --min-age 0 --lock-file /run/d/watchdog --format json > /dev/null 2> /tmp/lock.err; echo lock_rc=$?
trace /tmp/journal.trace $H reap --tmpdir /tmp/t --no-containers --min-age 0 --no-lock --journal /run/d/watchdog --format json > /dev/null 2> /tmp/journal.err; echo journal_rc=$?
echo lock_looked=$(grep -c watchdog /tmp/lock.trace) journal_looked=$(grep -c watchdog /tmp/journal.trace)
echo lock_opened=$(grep watchdog /tmp/lock.trace | grep -vc O_PATH) journal_opened=$(grep watchdog /tmp/journal.trace | grep -vc O_PATH)
echo lock_said=$(grep -c 'a character device' /tmp/lock.err) journal_said=$(grep -c 'a character device' /tmp/journal.err)
echo kind=$(kind /run/d/watchdog) stale=$(stale_left)
)SH");
  EXPECT_EQ(o.at("lock_rc"), "3") << o.result.err;
  EXPECT_EQ(o.at("journal_rc"), "3") << o.result.err;
  EXPECT_NE(o.at("lock_looked"), "0") << "strace saw the walk look at it";
  EXPECT_NE(o.at("journal_looked"), "0") << "strace saw the walk look at it";
  EXPECT_EQ(o.at("lock_opened"), "0") << "opened other than O_PATH";
  EXPECT_EQ(o.at("journal_opened"), "0") << "opened other than O_PATH";
  EXPECT_EQ(o.at("lock_said"), "1") << o.result.err;
  EXPECT_EQ(o.at("journal_said"), "1") << o.result.err;
  EXPECT_EQ(o.at("kind"), "character special file");
  EXPECT_EQ(o.at("stale"), "yes");
}

// The previous --metrics file (its counters are carried over) was read by name, following a
// planted link: here to a FIFO whose writer waits for a reader, which that open releases. A
// standard stream has no previous file: what stdout is redirected to was read back too.
TEST(HostileInput, PreviousMetricsFileBehindASymlinkIsNeverRead) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
mkfifo /tmp/fifo
sh -c 'echo "hsperfguard_audit_runs_total 1e15" > /tmp/fifo' & WRITER=$!
i=0; while [ $i -lt 200 ] && ! grep -q wait_for_partner /proc/$WRITER/wchan 2>/dev/null; do sleep 0.01; i=$((i+1)); done
echo writer_was_waiting=$(grep -q wait_for_partner /proc/$WRITER/wchan && echo yes || echo no)
ln -s /tmp/fifo /tmp/m.prom
$H audit --tmpdir /tmp/t --no-containers --format json --metrics /tmp/m.prom > /dev/null; echo link_rc=$?
sleep 0.2
echo writer_waiting=$(grep -q wait_for_partner /proc/$WRITER/wchan 2>/dev/null && echo yes || echo no)
kill $WRITER 2> /dev/null; wait $WRITER 2> /dev/null
echo kind=$(kind /tmp/m.prom)
printf 'hsperfguard_reap_files_total{outcome="removed"} 123456789\n' > /tmp/out.prom
$H reap --tmpdir /tmp/t --no-containers --min-age 0 --no-lock --dry-run --format json --output /tmp/r.json --metrics /dev/stdout >> /tmp/out.prom; echo stream_rc=$?
echo carried=$(grep '^hsperfguard_reap_files_total{outcome="removed"}' /tmp/out.prom | tail -1 | cut -d' ' -f2)
)SH");
  ASSERT_EQ(o.at("writer_was_waiting"), "yes") << "the FIFO's writer must wait before the run";
  EXPECT_EQ(o.at("link_rc"), "3") << "the link is not written over either; " << o.result.err;
  EXPECT_EQ(o.at("writer_waiting"), "yes") << "the FIFO behind the link was opened";
  EXPECT_EQ(o.at("kind"), "symbolic link");
  EXPECT_EQ(o.at("stream_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("carried"), "0") << "a counter carried over from what stdout was redirected to";
}

// ---- case 8: a lock file is ours only with our marker -------------------------------------

// An empty file or one holding a number passed for a lock file of ours: /etc/.pwd.lock,
// /var/lib/dpkg/lock and a state file holding 42 were overwritten with the pid. Each is left
// byte for byte now, exit 3, nothing reaped; so is a lock of the previous format (a bare pid)
// at the default path, which a reboot (/run is a tmpfs) or its removal clears.
TEST(HostileInput, LockFileDecoysAreLeftByteForByte) {
  SKIP_UNLESS_ROOT();
  const Outcome o = run_case(R"SH(
mkdir -p /run/etc /run/var/lib/dpkg /run/state /run/hsperfguard
: > /run/etc/.pwd.lock && chmod 0600 /run/etc/.pwd.lock
: > /run/var/lib/dpkg/lock && chmod 0640 /run/var/lib/dpkg/lock
printf '42\n' > /run/state/counter && chmod 0600 /run/state/counter
printf '4242\n' > /run/hsperfguard/reap.lock && chmod 0600 /run/hsperfguard/reap.lock
n=0
for f in /run/etc/.pwd.lock /run/var/lib/dpkg/lock /run/state/counter /run/hsperfguard/reap.lock; do
  before=$(sha256sum < $f)
  $H reap --tmpdir /tmp/t --no-containers --min-age 0 --lock-file $f --format json > /dev/null 2> /tmp/err.$n; echo "rc_$n=$?"
  [ "$before" = "$(sha256sum < $f)" ] && echo "same_$n=yes" || echo "same_$n=no"
  echo "named_$n=$(grep -c "$f" /tmp/err.$n)"
  echo "advice_$n=$(grep -c 'not a lock file of ours.*remove it.*--lock-file' /tmp/err.$n)"
  n=$((n+1))
done
echo stale=$(stale_left)
rm /run/hsperfguard/reap.lock
$H reap --tmpdir /tmp/t --no-containers --min-age 0 --format json > /dev/null; echo after_rm_rc=$?
echo after_rm=$(stale_left) lock=$(head -c 64 /run/hsperfguard/reap.lock | tr '\n' '|' | sed 's/^[0-9]*|/PID|/')
)SH");
  for (int n = 0; n < 4; ++n) {
    const std::string k = std::to_string(n);
    EXPECT_EQ(o.at("rc_" + k), "3") << n << ": " << o.result.err;
    EXPECT_EQ(o.at("same_" + k), "yes") << n;
    EXPECT_EQ(o.at("named_" + k), "1") << n << ": the message names the file";
    EXPECT_EQ(o.at("advice_" + k), "1") << n << ": the message says what to do";
  }
  EXPECT_EQ(o.at("stale"), "yes") << "no lock, no reaping";
  EXPECT_EQ(o.at("after_rm_rc"), "0") << o.result.err;
  EXPECT_EQ(o.at("after_rm"), "no");
  EXPECT_EQ(o.at("lock"), "PID|hsperfguard reap lock|") << "the holder's pid, then the marker";
}

}  // namespace
}  // namespace hsperfguard
