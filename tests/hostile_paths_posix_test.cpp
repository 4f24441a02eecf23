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
)SH";

// ---- case 13: root's link or directory inside a user's directory --------------------------

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
trace() { out=$1; shift; strace -f -qq -e trace=open,openat,openat2,creat -o $out "$@"; }
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

}  // namespace
}  // namespace hsperfguard
