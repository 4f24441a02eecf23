// The reaper against real files, real processes and real JVMs (Linux): the executor's
// re-checks, the acting identity, the lock, the journal, the command line and its report,
// and the end-to-end claim: reap removes exactly the stale files and every live JVM stays
// visible to jps and jstat.
//
// Everything lives in a private --tmpdir under a ScratchDir. The JVMs of the end-to-end test
// run in their own mount namespace whose /tmp is that private dir: they publish, lock and
// map their backing files there, so the reaper judges real live files (a copy of a live file
// would rightly be judged pid-reused), jps and jstat find them through /proc/<pid>/root/tmp,
// and nothing touches the real /tmp/hsperfdata_* of this machine.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/fsuid.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_posix.hpp"
#include "commands/reap_command.hpp"
#include "jvm_support.hpp"
#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "platform/observe.hpp"
#include "platform/reap.hpp"
#include "reap_test_support.hpp"
#include "report/reap_report.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using nlohmann::json;
using test::run;
using test::run_tool;
using namespace reaptest;

std::string text_of(const std::string& path) {
  const std::vector<std::byte> bytes = test::read_file(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// ---- The executor ---------------------------------------------------------------------------

TEST(ReapExecutor, RemovesStaleAndForeignAndKeepsWhatIsLocked) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string a = tree.stale_file(ns), b = tree.stale_file(ns);
  const std::string junk = tree.plain_file(ns, "junk.txt");
  const std::string sentinel = tree.sentinel("target");
  ASSERT_EQ(::symlink(sentinel.c_str(), (ns + "/link").c_str()), 0);
  const std::string locked = tree.stale_file(ns);
  HeldLock lock(locked);  // a JVM holding its file, as far as /proc/locks can tell

  ReapRun run = plan_in(tree.tmp);
  EXPECT_EQ(action_of(run, locked), "keep");
  EXPECT_EQ(verdict_of(run, locked), "live");
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, a), ReapOutcome::removed);
  EXPECT_EQ(outcome_of(run, result, b), ReapOutcome::removed);
  EXPECT_EQ(outcome_of(run, result, junk), ReapOutcome::removed);
  EXPECT_EQ(outcome_of(run, result, ns + "/link"), ReapOutcome::removed);
  EXPECT_FALSE(exists(a));
  EXPECT_FALSE(exists(ns + "/link"));
  EXPECT_TRUE(exists(locked));
  EXPECT_TRUE(tree.sentinels_intact());
  EXPECT_TRUE(result.errors.empty());
}

TEST(ReapExecutor, FileLockedAfterPlanningBecameLiveAndIsKept) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, file), "remove");
  HeldLock lock(file);  // a JVM with this pid started and took it
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, file), ReapOutcome::became_live);
  EXPECT_TRUE(exists(file));
}

TEST(ReapExecutor, FileGoneAfterPlanningIsVanishedNotFailed) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(::unlink(file.c_str()), 0);
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, file), ReapOutcome::vanished);
}

// Whether `path` (a file, or a directory itself) was opened or read while `action` ran, as
// inotify saw it. Fails the test if the watch cannot be set up.
template <typename Action>
bool opened_during(const std::string& path, Action&& action) {
  const int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  EXPECT_GE(watch, 0);
  EXPECT_GE(::inotify_add_watch(watch, path.c_str(), IN_OPEN | IN_ACCESS), 0) << path;
  action();
  alignas(inotify_event) char events[4096];
  const ssize_t got = ::read(watch, events, sizeof events);
  const int read_errno = errno;
  ::close(watch);
  EXPECT_TRUE(got > 0 || read_errno == EAGAIN) << "reading the inotify events failed";
  return got > 0;
}

// The owner swaps a planned file for a symlink to a file outside the namespace: the reaper
// leaves the link (identity changed) and never opens its target, which inotify would see
// (opening a device can act on it: a tape rewinds, a modem hangs up).
TEST(ReapExecutor, FileSwappedForASymlinkAfterPlanningIsNeverFollowed) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  const std::string sentinel = tree.sentinel("opened-never");
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, file), "remove");
  ASSERT_EQ(::unlink(file.c_str()), 0);
  ASSERT_EQ(::symlink(sentinel.c_str(), file.c_str()), 0);

  ExecutionResult result;
  EXPECT_FALSE(opened_during(sentinel, [&] { result = platform::execute_plan(run.plan, {}); }))
      << "the symlink's target was opened or read";

  EXPECT_EQ(outcome_of(run, result, file), ReapOutcome::changed);
  struct stat st {};
  ASSERT_EQ(::lstat(file.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link is left";
  EXPECT_TRUE(tree.sentinels_intact());
}

// The same for the namespace itself: swapped for a symlink to a directory outside after the
// plan, it is refused without opening the link's target (inotify watches it), and nothing in
// the target is touched.
TEST(ReapExecutor, NamespaceSwappedForASymlinkAfterPlanningIsNeverFollowed) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  const std::string target = tree.outside + "/dir";
  ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
  const std::string sentinel =
      tree.sentinel_in(target, std::filesystem::path(file).filename().string());
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, file), "remove");
  ASSERT_EQ(::rename(ns.c_str(), (tree.outside + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink(target.c_str(), ns.c_str()), 0);

  ExecutionResult result;
  EXPECT_FALSE(opened_during(target, [&] { result = platform::execute_plan(run.plan, {}); }))
      << "the symlink's target directory was opened";

  // Exactly this: the namespace is refused as changed, and each of its items with it (not a
  // failure of the reaper: its owner may put anything in its place).
  const ReapActionRecord* r = record_of(run, result, file);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, ReapOutcome::changed);
  EXPECT_EQ(r->detail, "namespace-changed");
  EXPECT_TRUE(tree.sentinels_intact());
}

// A planned file that gained a second name since the plan (its owner linked it elsewhere) is
// left whole: removing one name would change the other file, and the plan judged one of one.
TEST(ReapExecutor, FileHardLinkedAfterPlanningIsKept) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, file), "remove");
  ASSERT_EQ(::link(file.c_str(), (tree.outside + "/second-name").c_str()), 0);
  const auto result = platform::execute_plan(run.plan, {});
  const auto* record = record_of(run, result, file);
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->outcome, ReapOutcome::changed);
  EXPECT_EQ(record->detail, "hard-linked");
  EXPECT_TRUE(exists(file));
}

// The regions the reaper reads after observation (read_regions, for the files whose liveness
// needs one) come only from the directories observed: a namespace replaced since, holding a
// file of the same name, is reported as replaced and none of its files is read.
TEST(ReapRegions, ReplacedNamespaceIsReportedAndNothingInItIsRead) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  RootSpec spec;
  spec.temp_dir = tree.tmp;
  platform::ObserveOptions options;
  options.open_files = false;  // as the reaper observes: lstat only, no region yet
  TempRootFacts facts = platform::observe_temp_root(spec, options);
  ASSERT_EQ(facts.namespaces.size(), 1u);
  ASSERT_EQ(facts.namespaces[0].files.size(), 1u);
  ASSERT_FALSE(facts.namespaces[0].files[0].region);

  ASSERT_EQ(::rename(ns.c_str(), (tree.outside + "/moved").c_str()), 0);
  const std::string replacement = tree.make_namespace("nobody", kNobody, kNogroup);
  tree.region_file(replacement, std::filesystem::path(file).filename().string());
  std::vector<ObservationError> errors;
  platform::read_regions(
      facts, facts.namespaces, [](const FileFacts&) { return true; }, 1 << 20, errors);
  EXPECT_TRUE(errors.empty());
  const NamespaceFacts& seen = facts.namespaces[0];
  ASSERT_EQ(seen.errors.size(), 1u);
  EXPECT_EQ(seen.errors[0].message, "replaced while being observed");
  EXPECT_FALSE(seen.files[0].region) << "a file of the replaced namespace was read";
  EXPECT_TRUE(seen.files[0].errors.empty()) << "the namespace, not each file, was replaced";
}

// A file its owner may no longer read (its mode changed after the plan, which the executor
// does not compare): root could open it (CAP_DAC_OVERRIDE), the owner cannot. The reaper acts
// as the owner, so it fails, and says so. (A plan never promises this: the plan leaves what
// the owner may not do to a person, see ReapPlan.*ForAPerson.)
TEST(ReapExecutor, ActsWithTheNamespaceOwnersFileSystemIdentity) {
  if (!test::is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string owned = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string theirs = tree.stale_file(owned);
  const std::string ours_ns = tree.make_namespace("root", 0, 0);
  const std::string ours = tree.stale_file(ours_ns);

  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, theirs), "remove");
  ASSERT_EQ(::chmod(theirs.c_str(), 0), 0);
  ASSERT_EQ(::chmod(ours.c_str(), 0), 0);
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, theirs), ReapOutcome::failed);
  const auto* record = record_of(run, result, theirs);
  ASSERT_NE(record, nullptr);
  ASSERT_TRUE(record->error);
  EXPECT_EQ(record->error->code, EACCES) << record->error->message;
  EXPECT_TRUE(exists(theirs));
  EXPECT_EQ(outcome_of(run, result, ours), ReapOutcome::removed);  // root's own namespace
}

// Where the kernel has the owner's uid but not its gid (a user namespace that maps one and not
// the other), setfsuid takes and setfsgid fails without a word. The executor reads both back:
// an identity taken only half is a failure of the namespace, and nothing in it is removed as
// the owner's uid with root's group.
TEST(ReapExecutor, AnIdentityTakenOnlyHalfIsAFailureAndNothingIsRemoved) {
  if (!test::is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, stale), "remove");
  // Nobody's uid is mapped, its gid is not.
  const auto child = test::run_in_user_namespace("0 0 1\n65534 65534 1\n", "0 0 1\n", [&]() -> std::string {
    // The sandbox is what the test says it is: nobody's uid is there, its gid is not.
    if (::setfsuid(kNobody) != 0 || ::setfsuid(0) != static_cast<int>(kNobody)) return "no uid 65534";
    if (::setfsgid(kNogroup) != 0 || ::setfsgid(0) != 0) return "gid 65534 is mapped";
    const auto result = platform::execute_plan(run.plan, {});
    const auto* record = record_of(run, result, stale);
    if (record == nullptr) return "no record";
    return std::string(to_string(record->outcome)) + " " + record->detail + " " +
           (record->error ? record->error->op : "no error");
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, "failed identity-switch-failed setfsuid");
  EXPECT_TRUE(exists(stale));
}

// After acting as the owners, the calling thread has root's file-system identity again and
// every supplementary group it had (set here to three, in a child: an acting identity has
// none, and a thread left so would write the report and journal without them).
TEST(ReapExecutor, TheCallingThreadIsRootAgainAfterwards) {
  if (!test::is_root()) GTEST_SKIP() << "needs root";
  ReapTree tree;
  tree.stale_file(tree.make_namespace("nobody", kNobody, kNogroup));
  tree.stale_file(tree.make_namespace("daemon", 1, 1));
  ReapRun run = plan_in(tree.tmp);
  const auto child = test::run_in_child([&]() -> std::string {
    const gid_t groups[] = {0, 4, 100};
    if (::syscall(SYS_setgroups, 3, groups) != 0) return "setgroups failed";
    platform::ExecuteOptions one_thread;
    one_thread.max_threads = 1;  // the namespaces are done on this very thread
    const auto result = platform::execute_plan(run.plan, one_thread);
    std::string out = "removed " + std::to_string(count(result, ReapOutcome::removed));
    out += " fsuid " + std::to_string(::setfsuid(static_cast<uid_t>(-1)));
    out += " fsgid " + std::to_string(::setfsgid(static_cast<gid_t>(-1)));
    gid_t now[16];
    const int n = ::getgroups(16, now);
    out += " groups";
    for (int i = 0; i < n; ++i) out += " " + std::to_string(now[i]);
    return out;
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out, "removed 2 fsuid 0 fsgid 0 groups 0 4 100");
}

TEST(ReapExecutor, DeadlineAndStopLeaveTheRestNotAttempted) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  for (int i = 0; i < 5; ++i) tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  platform::ExecuteOptions past;
  past.deadline = std::chrono::steady_clock::now();
  const auto timed_out = platform::execute_plan(run.plan, past);
  EXPECT_TRUE(timed_out.deadline_reached);
  EXPECT_EQ(count(timed_out, ReapOutcome::not_attempted), 5u);
  EXPECT_EQ(timed_out.actions.at(0).detail, "deadline");

  std::atomic<bool> stop{true};
  platform::ExecuteOptions stopped;
  stopped.stop = &stop;
  const auto interrupted = platform::execute_plan(run.plan, stopped);
  EXPECT_TRUE(interrupted.interrupted);
  EXPECT_EQ(count(interrupted, ReapOutcome::not_attempted), 5u);
  EXPECT_EQ(tree.count_entries(ns), 5u);
}

// The write-ahead callback runs while the entry still exists, the outcome callback after.
TEST(ReapExecutor, JournalHearsOfEveryUnlinkBeforeItHappens) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  for (int i = 0; i < 4; ++i) tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  std::vector<std::string> events;
  platform::ExecuteOptions options;
  options.before_unlink = [&](const PlanItem& item) {
    events.push_back((exists(item.path) ? "present " : "absent ") + item.path);
    return true;
  };
  options.on_action = [&](const PlanItem& item, const ReapActionRecord& r) {
    events.push_back(std::string(to_string(r.outcome)) +
                     (exists(item.path) ? " present " : " absent ") + item.path);
  };
  platform::execute_plan(run.plan, options);
  ASSERT_EQ(events.size(), 8u);
  for (std::size_t i = 0; i < events.size(); i += 2) {
    EXPECT_TRUE(events[i].starts_with("present ")) << events[i];
    EXPECT_TRUE(events[i + 1].starts_with("removed absent ")) << events[i + 1];
  }

  // A journal that cannot be written stops the run before the unlink it could not record.
  const std::string file = tree.stale_file(ns);
  ReapRun again = plan_in(tree.tmp);
  platform::ExecuteOptions failing;
  failing.before_unlink = [](const PlanItem&) { return false; };
  const auto result = platform::execute_plan(again.plan, failing);
  EXPECT_TRUE(exists(file));
  EXPECT_EQ(record_of(again, result, file)->detail, "journal-failed");
}

// A socket whose pid lives is kept while that process listens on it (this test process, as
// HotSpot makes its listener); once nothing listens, it is stale though the pid still lives.
TEST(ReapExecutor, AttachFilesOfGonePidsAreRemovedOthersKept) {
  ReapTree tree;
  const pid_t gone = dead_pid();
  const std::string stale_socket = tree.tmp + "/.java_pid" + std::to_string(gone);
  const std::string live_socket = tree.tmp + "/.java_pid" + std::to_string(::getpid());
  const std::string trigger = tree.tmp + "/.attach_pid" + std::to_string(gone);
  ASSERT_TRUE(make_socket(stale_socket));
  auto listening = std::make_unique<ListeningSocket>(live_socket);
  ASSERT_TRUE(listening->ok());
  test::write_file(trigger, {});
  ReapRun run = plan_in(tree.tmp);
  EXPECT_EQ(action_of(run, live_socket), "keep");
  EXPECT_EQ(item_of(run, live_socket)->reason, "process-alive");
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, stale_socket), ReapOutcome::removed);
  EXPECT_EQ(outcome_of(run, result, trigger), ReapOutcome::removed);
  EXPECT_TRUE(exists(live_socket));

  listening.reset();  // closed: the file stays, nothing listens on it
  ReapRun closed = plan_in(tree.tmp);
  EXPECT_EQ(action_of(closed, live_socket), "remove");
  EXPECT_EQ(item_of(closed, live_socket)->reason, "no-listener");
  const auto second = platform::execute_plan(closed.plan, {});
  EXPECT_EQ(outcome_of(closed, second, live_socket), ReapOutcome::removed);
  EXPECT_FALSE(exists(live_socket));
}

// A socket judged stale (its pid, this test process, lives and listens on nothing of that
// name) and replaced before the act by a regular file or a symbolic link: the identity checks
// every removal makes (the entry held with O_PATH and compared with the plan) refuse both, and
// neither the replacement nor the link's target is touched.
TEST(ReapExecutor, AttachSocketSwappedBetweenPlanAndActIsRefused) {
  ReapTree tree;
  const std::string socket = tree.tmp + "/.java_pid" + std::to_string(::getpid());
  const std::string target = tree.sentinel("link-target");
  for (const bool as_link : {false, true}) {
    SCOPED_TRACE(as_link ? "symbolic link" : "regular file");
    ASSERT_TRUE(make_socket(socket));
    ReapRun run = plan_in(tree.tmp);
    ASSERT_EQ(action_of(run, socket), "remove");
    ASSERT_EQ(item_of(run, socket)->reason, "no-listener");
    ASSERT_EQ(::unlink(socket.c_str()), 0);
    if (as_link) {
      ASSERT_EQ(::symlink(target.c_str(), socket.c_str()), 0);
    } else {
      test::write_file(socket, test::to_bytes("not a socket\n"));
    }
    const auto result = platform::execute_plan(run.plan, {});
    EXPECT_EQ(outcome_of(run, result, socket), ReapOutcome::changed);
    EXPECT_EQ(record_of(run, result, socket)->detail, "identity-changed");
    struct stat st {};
    ASSERT_EQ(::lstat(socket.c_str(), &st), 0);
    EXPECT_EQ(S_ISLNK(st.st_mode), as_link);
    EXPECT_EQ(S_ISREG(st.st_mode), !as_link);
    ASSERT_EQ(::unlink(socket.c_str()), 0);
  }
  EXPECT_TRUE(tree.sentinels_intact());
}

TEST(ReapExecutor, EmptyNamespaceOfAGoneUserOnlyWithTheFlag) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("no-such-user-hsperfguard", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  ReapRun plain = plan_in(tree.tmp);
  platform::execute_plan(plain.plan, {});
  EXPECT_FALSE(exists(file));
  EXPECT_TRUE(exists(ns));

  const std::string second = tree.stale_file(ns);
  ReapCommandOptions flag;
  flag.remove_empty_namespaces = true;
  ReapRun run = plan_in(tree.tmp, flag);
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, ns), ReapOutcome::removed);
  EXPECT_FALSE(exists(ns));
  // Each record says what was removed: the file unlinked, the directory removed.
  ASSERT_NE(record_of(run, result, ns), nullptr);
  EXPECT_EQ(record_of(run, result, ns)->detail, "removed-directory");
  ASSERT_NE(record_of(run, result, second), nullptr);
  EXPECT_EQ(record_of(run, result, second)->detail, "unlinked");
}

// A namespace's files are acted on in batches of 256 that the acting threads share; its
// directory waits for all of them: 700 files of a gone user's namespace, two threads, and the
// directory is removed (rmdir of a namespace with a file left fails), each file unlinked.
TEST(ReapExecutor, ANamespacesFilesAreSharedByTheThreadsAndItsDirectoryGoesLast) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("no-such-user-hsperfguard", kNobody, kNogroup);
  std::vector<std::string> files;
  for (int i = 0; i < 700; ++i) files.push_back(tree.stale_file(ns));
  ReapCommandOptions flag;
  flag.remove_empty_namespaces = true;
  ReapRun run = plan_in(tree.tmp, flag);
  platform::ExecuteOptions options;
  options.max_threads = 2;
  const auto result = platform::execute_plan(run.plan, options);
  for (const std::string& f : files) {
    ASSERT_NE(record_of(run, result, f), nullptr) << f;
    EXPECT_EQ(record_of(run, result, f)->detail, "unlinked") << f;
  }
  EXPECT_EQ(outcome_of(run, result, ns), ReapOutcome::removed);
  ASSERT_NE(record_of(run, result, ns), nullptr);
  EXPECT_EQ(record_of(run, result, ns)->detail, "removed-directory");
  EXPECT_FALSE(exists(ns));
  EXPECT_TRUE(tree.sentinels_intact());
}

// No more threads act than max_threads: with one, every item is settled on the calling
// thread; with two, on at most two threads (a namespace of 1,200 files is five batches, which
// a thread too many would share).
TEST(ReapExecutor, NoMoreThreadsActThanMaxThreads) {
  for (const unsigned max_threads : {1u, 2u}) {
    ReapTree tree;
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
    for (int i = 0; i < 1200; ++i) tree.stale_file(ns);
    ReapRun run = plan_in(tree.tmp);
    std::set<std::thread::id> acting;
    platform::ExecuteOptions options;
    options.max_threads = max_threads;
    options.on_action = [&](const PlanItem&, const ReapActionRecord&) { acting.insert(std::this_thread::get_id()); };
    const auto result = platform::execute_plan(run.plan, options);
    EXPECT_EQ(result.actions.size(), 1200u);
    EXPECT_GE(acting.size(), 1u);
    EXPECT_LE(acting.size(), max_threads) << max_threads;
    if (max_threads == 1) {
      EXPECT_TRUE(acting.contains(std::this_thread::get_id()));
    }
  }
}

// ---- Mounts: never crossed --------------------------------------------------------------------

// A file bind-mounted over a stale name, and a namespace that is itself a mount: the reaper
// (run in a private mount namespace where the mounts exist) leaves both, and what they show.
TEST(ReapCli, NeverCrossesAMountPoint) {
  if (!test::is_root() || test::find_program("unshare").empty()) GTEST_SKIP() << "needs root, unshare";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string covered = tree.stale_file(ns);
  const std::string sentinel = tree.sentinel("mounted-file");
  const std::string mounted_ns = tree.make_namespace("daemon", 1, 1);
  const std::string elsewhere = tree.outside + "/elsewhere";
  ASSERT_EQ(::mkdir(elsewhere.c_str(), 0755), 0);
  const std::string inside = tree.sentinel_in(elsewhere, std::to_string(dead_pid()));
  const std::string report = tree.scratch / "report.json";
  const auto r = run({"unshare", "-m", "--propagation", "private", "sh", "-c",
                      "mount --bind '" + sentinel + "' '" + covered + "' && mount --bind '" +
                          elsewhere + "' '" + mounted_ns + "' && exec '" + test::tool_path() +
                          "' reap --tmpdir '" + tree.tmp + "' --min-age 0 --no-lock --format json"
                          " --output '" + report + "'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(std::ifstream(report));
  bool saw_covered = false;
  for (const auto& item : doc.at("plan")) {
    if (item.at("path") == covered) {
      saw_covered = true;
      EXPECT_EQ(item.at("action"), "keep") << item.dump();
      EXPECT_EQ(item.at("reason"), "crosses-mount") << item.dump();
    }
  }
  EXPECT_TRUE(saw_covered) << doc.at("plan").dump();
  for (const auto& n : doc.at("reap").at("namespaces")) {
    if (n.at("path") == mounted_ns) {
      EXPECT_EQ(n.at("why"), "crosses-mount") << n.dump();
    }
  }
  EXPECT_TRUE(exists(covered));
  EXPECT_TRUE(exists(inside));
  EXPECT_TRUE(tree.sentinels_intact());
}

// ---- The command line -----------------------------------------------------------------------

TEST(ReapCli, DryRunPrintsThePlanAndChangesNothing) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string a = tree.stale_file(ns);
  const std::string fifo = ns + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto text = run_tool({"reap", "--tmpdir", tree.tmp, "--dry-run", "--min-age", "0",
                              "--format", "text"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("dry run"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("remove  " + basename(a) + "  stale: pid "), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("skip    pipe  foreign: a fifo is never a JVM's backing file; skipped: a FIFO, socket or device is removed only with --include-special"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("actions:"), std::string::npos);

  int rc = -1;
  const json doc = reap_json(tree.tmp, {"--dry-run", "--min-age", "0"}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(doc.at("reap").at("dry_run"), true);
  EXPECT_TRUE(doc.at("actions").empty());
  EXPECT_TRUE(doc.at("reap").at("outcomes").is_null());
  EXPECT_EQ(doc.at("plan").size(), 2u);
  // Each item's line in the text gives its verdict and the message the JSON report gives it.
  for (const auto& item : doc.at("plan")) {
    const std::string message = item.at("message");
    const std::string verdict = item.at("verdict");
    EXPECT_FALSE(message.empty()) << item.dump();
    EXPECT_NE(text.out.find("  " + verdict + ": " + message), std::string::npos) << message << "\n" << text.out;
  }
  EXPECT_TRUE(exists(a));
  EXPECT_TRUE(exists(fifo));
}

// The audit's next line counts what `reap --dry-run` removes and keeps, by the reap planner on
// the same facts: files made now are younger than reap's default --min-age (1m), a FIFO and a
// hard-linked pair are never removed. Before: "shows what the reaper would remove (4 stale or
// foreign file(s))" beside a dry run that removed none.
TEST(ReapCli, AuditsNextLineCountsWhatTheDryRunRemovesAndKeeps) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  tree.stale_file(ns);
  const std::string linked = tree.stale_file(ns);
  ASSERT_EQ(::link(linked.c_str(), (ns + "/" + std::to_string(dead_pid())).c_str()), 0);
  const std::string fifo = ns + "/" + std::to_string(dead_pid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto audit = run_tool({"audit", "--tmpdir", tree.tmp, "--no-policy", "--format", "text"});
  int rc = -1;
  const json doc = reap_json(tree.tmp, {"--dry-run"}, &rc);
  ASSERT_EQ(rc, 0);
  std::size_t kept = 0;
  for (const auto& item : doc.at("plan")) {
    const std::string verdict = item.at("verdict");
    if (item.at("action") != "remove" && verdict != "live" && verdict != "unknown") ++kept;
  }
  const std::size_t removed = doc.at("reap").at("planned").at("remove");
  EXPECT_EQ(removed, 0u) << doc.dump();
  EXPECT_EQ(kept, 4u) << doc.dump();
  EXPECT_NE(audit.out.find("hsperfguard reap --dry-run --tmpdir " + tree.tmp + "   shows why the reaper keeps " +
                           std::to_string(kept) + " stale or foreign file(s)"),
            std::string::npos)
      << audit.out;
  EXPECT_EQ(audit.out.find("would remove"), std::string::npos) << audit.out;

  // With --min-age 0 the reaper would remove the lone stale file; the audit speaks of reap's
  // defaults, which its next line names.
  const json now = reap_json(tree.tmp, {"--dry-run", "--min-age", "0"}, &rc);
  EXPECT_EQ(now.at("reap").at("planned").at("remove"), 1u) << now.dump();
}

TEST(ReapCli, ReportListsThePlanWithEvidenceAndWhatWasDone) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string a = tree.stale_file(ns);
  const std::string locked = tree.stale_file(ns);
  HeldLock lock(locked);
  int rc = -1;
  const json doc = reap_json(tree.tmp, {"--min-age", "0"}, &rc);
  EXPECT_EQ(rc, 0) << doc.dump(2);
  EXPECT_EQ(doc.at("command"), "reap");
  ASSERT_EQ(doc.at("plan").size(), 2u);
  for (const auto& item : doc.at("plan")) {
    EXPECT_TRUE(item.at("evidence").contains("decided_by")) << item.dump();
    EXPECT_FALSE(item.at("message").get<std::string>().empty());
    if (item.at("path") == locked) {
      EXPECT_EQ(item.at("verdict"), "live");
      EXPECT_EQ(item.at("evidence").at("lock").at("state"), "held");
    } else {
      EXPECT_EQ(item.at("verdict"), "stale");
      EXPECT_EQ(item.at("action"), "remove");
      EXPECT_EQ(item.at("expected").at("uid"), kNobody);
      if (test::is_root()) {
        EXPECT_EQ(item.at("acting").at("uid"), kNobody);
      }
    }
  }
  ASSERT_EQ(doc.at("actions").size(), 1u);
  EXPECT_EQ(doc.at("actions")[0].at("path"), a);
  EXPECT_EQ(doc.at("actions")[0].at("outcome"), "removed");
  EXPECT_EQ(doc.at("reap").at("outcomes").at("removed"), 1);
  EXPECT_EQ(doc.at("reap").at("planned").at("by_why").at("live"), 1);
}

TEST(ReapCli, ExitCodes) {
  ReapTree tree;
  int rc = -1;
  reap_json(tree.tmp, {"--min-age", "0"}, &rc);
  EXPECT_EQ(rc, 0) << "nothing to do";

  EXPECT_EQ(run_tool({"reap", "--tmpdir", tree.tmp, "--min-age", "soon"}).exit_code, 2);
  EXPECT_EQ(run_tool({"reap", "--tmpdir", tree.tmp, "--root", "/"}).exit_code, 2);
  EXPECT_EQ(run_tool({"reap", "--tmpdir", tree.tmp, "--wait", "--no-wait"}).exit_code, 2);
  const auto missing = run_tool({"reap", "--tmpdir", tree.scratch / "no-such-dir", "--no-lock",
                                 "--format", "json"});
  // A temp dir that is not there is a usage error naming it (was 3, with a report).
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_EQ(missing.out, "");
  EXPECT_NE(missing.err.find("no-such-dir', which does not exist"), std::string::npos) << missing.err;

  if (test::is_root()) {
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
    const std::string file = tree.stale_file(ns);
    // Its owner may not remove anything there: planned as kept for a person, not a failure.
    ASSERT_EQ(::chmod(ns.c_str(), 0555), 0);
    json doc = reap_json(tree.tmp, {"--min-age", "0"}, &rc);
    EXPECT_EQ(rc, 0) << doc.dump(2);
    EXPECT_EQ(doc.at("reap").at("planned").at("by_why").at("not-permitted"), 1);
    EXPECT_EQ(doc.at("reap").at("outcomes").at("failed"), 0);
    ASSERT_EQ(::chmod(ns.c_str(), 0755), 0);
    // What the plan cannot see fails: an immutable file (only root sets the flag).
    ASSERT_EQ(run({"chattr", "+i", file}).exit_code, 0);
    doc = reap_json(tree.tmp, {"--min-age", "0"}, &rc);
    EXPECT_EQ(rc, 1) << doc.dump(2);
    EXPECT_EQ(doc.at("reap").at("outcomes").at("failed"), 1);
    EXPECT_EQ(run({"chattr", "-i", file}).exit_code, 0);
  }
}

TEST(ReapCli, MinAgeProtectsFilesJustCreated) {
  ReapTree tree;
  const std::string file = tree.stale_file(tree.make_namespace("nobody", kNobody, kNogroup));
  int rc = -1;
  const json doc = reap_json(tree.tmp, {}, &rc);  // default --min-age 60s
  EXPECT_EQ(rc, 0);
  ASSERT_EQ(doc.at("plan").size(), 1u);
  EXPECT_EQ(doc.at("plan")[0].at("action"), "skip");
  EXPECT_EQ(doc.at("plan")[0].at("why"), "too-young");
  EXPECT_EQ(doc.at("reap").at("options").at("min_age_ms"), 60000);
  EXPECT_TRUE(exists(file));
}

// --max-runtime bounds discovery and observation too (a local user can make them slow): a
// deadline reached before the plan is made stops the run there, removes nothing and says so
// (exit 3). Reached while acting, it leaves the rest not attempted (ReapExecutor tests).
TEST(ReapCli, MaxRuntimeReachedBeforeThePlanRemovesNothingAndExits3) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  for (int i = 0; i < 3; ++i) tree.stale_file(ns);
  int rc = -1;
  const json doc = reap_json(tree.tmp, {"--min-age", "0", "--max-runtime", "0"}, &rc);
  EXPECT_EQ(rc, 3);
  EXPECT_EQ(doc.at("complete"), false);
  EXPECT_EQ(doc.at("reap").at("outcomes").at("removed"), 0);
  EXPECT_NE(doc.at("errors").dump().find("stopped (deadline)"), std::string::npos) << doc.at("errors").dump();
  EXPECT_EQ(tree.count_entries(ns), 3u);
}

TEST(ReapCli, SingleInstanceLockWaitOrExitCleanly) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  const std::string lock_file = tree.scratch / "run/reap.lock";
  {
    // Another reap holds the lock (a file it made: its pid and the marker).
    ASSERT_EQ(::mkdir((tree.scratch / "run").c_str(), 0755), 0);
    test::write_file(lock_file, test::to_bytes(lock_file_content(4242)));
    ASSERT_EQ(::chmod(lock_file.c_str(), 0600), 0);
    HeldLock other(lock_file);
    ASSERT_TRUE(other.held());
    const auto busy = run_tool({"reap", "--tmpdir", tree.tmp, "--min-age", "0", "--lock-file",
                                lock_file, "--format", "json"});
    EXPECT_EQ(busy.exit_code, 0) << busy.err;
    EXPECT_NE(busy.err.find("another reap holds " + lock_file + " (pid 4242)"), std::string::npos) << busy.err;
    EXPECT_TRUE(busy.out.empty());
    const auto t0 = std::chrono::steady_clock::now();
    const auto waited = run_tool({"reap", "--tmpdir", tree.tmp, "--min-age", "0", "--lock-file",
                                  lock_file, "--wait", "--max-runtime", "1s", "--format", "json"});
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(waited.exit_code, 0) << waited.err;
    EXPECT_NE(waited.err.find("gave up waiting"), std::string::npos) << waited.err;
    EXPECT_GE(took, std::chrono::milliseconds(900));
    EXPECT_TRUE(exists(file));
  }
  // Released: the next run takes it, reaps, and releases it again.
  const auto ran = run_tool({"reap", "--tmpdir", tree.tmp, "--min-age", "0", "--lock-file",
                             lock_file, "--wait", "--format", "json"});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_FALSE(exists(file));
  const json doc = json::parse(ran.out);
  EXPECT_EQ(doc.at("reap").at("lock").at("acquired"), true);
  HeldLock after(lock_file);
  EXPECT_TRUE(after.held());
  EXPECT_TRUE(is_lock_file_content(text_of(lock_file))) << text_of(lock_file);

  if (test::is_root()) {
    // A lock file someone else owns could be held forever: refused.
    ASSERT_EQ(::chown(lock_file.c_str(), kNobody, kNogroup), 0);
    const auto refused = run_tool({"reap", "--tmpdir", tree.tmp, "--lock-file", lock_file});
    EXPECT_EQ(refused.exit_code, 3) << refused.err;
  }
}

// The fault sweep's finding: the run's lock, taken without waiting, answered EINTR (a signal
// in the call; no other run holds it) and the reap took that for a lock held by another run:
// "another reap holds ... (pid <its own>)", exit 0, nothing reaped. The call is made again.
TEST(ReapCli, LockCallInterruptedIsMadeAgainNotTakenForAnotherRun) {
  if (!test::have_program("strace")) GTEST_SKIP() << "needs strace to make flock answer EINTR";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string file = tree.stale_file(ns);
  const std::string lock_file = tree.scratch / "run/reap.lock";
  ASSERT_EQ(::mkdir((tree.scratch / "run").c_str(), 0755), 0);
  // The lock's flock is the first the tool makes.
  const auto r = test::run({"strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=flock", "-e",
                            "inject=flock:error=EINTR:when=1", "env", test::traced_asan_options(), "timeout",
                            "-s", "KILL", "20",
                            test::tool_path(), "reap", "--tmpdir", tree.tmp, "--min-age", "0", "--lock-file",
                            lock_file, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("another reap holds"), std::string::npos) << r.err;
  EXPECT_FALSE(exists(file)) << r.err;
}

// The lock file of a version before the marker holds just a pid. While the older run holds it
// (an upgrade during a reap), the new run finds it busy and writes nothing; once it is free,
// the file is not ours: refused, left as it is, with what to do.
TEST(ReapCli, LockFileOfAnOlderVersionIsBusyWhileHeldThenRefused) {
  ReapTree tree;
  const std::string file = tree.stale_file(tree.make_namespace("nobody", kNobody, kNogroup));
  ASSERT_EQ(::mkdir((tree.scratch / "run").c_str(), 0755), 0);
  const std::string lock_file = tree.scratch / "run/reap.lock";
  test::write_file(lock_file, test::to_bytes("4242\n"));
  ASSERT_EQ(::chmod(lock_file.c_str(), 0600), 0);
  {
    HeldLock older(lock_file);
    ASSERT_TRUE(older.held());
    const auto busy = run_tool({"reap", "--tmpdir", tree.tmp, "--min-age", "0", "--lock-file", lock_file});
    EXPECT_EQ(busy.exit_code, 0) << busy.err;
    EXPECT_NE(busy.err.find("another reap holds " + lock_file + ";"), std::string::npos)
        << "no pid is read from a file that is not ours: " << busy.err;
  }
  const auto refused = run_tool({"reap", "--tmpdir", tree.tmp, "--min-age", "0", "--lock-file", lock_file});
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find(lock_file), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("remove it"), std::string::npos) << refused.err;
  EXPECT_EQ(text_of(lock_file), "4242\n");
  EXPECT_TRUE(exists(file));
}

TEST(ReapCli, JournalRecordsEachUnlinkBeforeAndAfter) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  std::set<std::string> files;
  for (int i = 0; i < 3; ++i) files.insert(tree.stale_file(ns));
  const std::string journal = tree.scratch / "reap.jsonl";
  int rc = -1;
  reap_json(tree.tmp, {"--min-age", "0", "--journal", journal}, &rc);
  EXPECT_EQ(rc, 0);
  std::ifstream in(journal);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 1u + 2 * files.size() + 1u);
  EXPECT_EQ(lines.front().at("event"), "start");
  EXPECT_EQ(lines.front().at("planned_removals"), 3);
  EXPECT_EQ(lines.back().at("event"), "finish");
  EXPECT_EQ(lines.back().at("removed"), 3);
  std::set<std::string> unlinking, removed;
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    const json& l = lines[i];
    if (l.at("event") == "unlinking") {
      unlinking.insert(l.at("path"));
      EXPECT_TRUE(l.contains("ino"));
    } else {
      EXPECT_EQ(l.at("event"), "outcome");
      EXPECT_EQ(l.at("outcome"), "removed");
      EXPECT_TRUE(unlinking.contains(l.at("path"))) << "outcome before its write-ahead line";
      removed.insert(l.at("path"));
    }
  }
  EXPECT_EQ(unlinking, files);
  EXPECT_EQ(removed, files);
}

// The text groups the removals of a namespace as its plan does (one line, --verbose lists
// each); the journal still has a line for each removal.
TEST(ReapCli, TextGroupsRemovalsWhileTheJournalRecordsEach) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  std::set<std::string> files;
  for (int i = 0; i < 5; ++i) files.insert(tree.stale_file(ns));
  const std::string journal = tree.scratch / "reap.jsonl";
  const auto result =
      test::run_tool({"reap", "--tmpdir", tree.tmp, "--no-lock", "--min-age", "0", "--journal", journal});
  ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
  std::size_t removed_lines = 0;
  std::istringstream text(result.out);
  for (std::string line; std::getline(text, line);) removed_lines += line.starts_with("  removed") ? 1 : 0;
  EXPECT_EQ(removed_lines, 1U) << result.out;
  const std::size_t grouped = result.out.find("  removed       5 ");
  ASSERT_NE(grouped, std::string::npos) << result.out;
  EXPECT_NE(result.out.find(" files in " + ns + " (", grouped), std::string::npos) << result.out;
  std::ifstream in(journal);
  std::set<std::string> removed;
  for (std::string line; std::getline(in, line);) {
    const json l = json::parse(line);
    if (l.at("event") == "outcome" && l.at("outcome") == "removed") removed.insert(l.at("path"));
  }
  EXPECT_EQ(removed, files);
}

// A journal whose last line an earlier run left cut short (killed in the middle of a write
// before records were written whole): the line is ended and marked, and no record of this run
// is glued onto it.
TEST(ReapCli, JournalLineCutShortByAnEarlierRunIsEndedAndMarked) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  tree.stale_file(ns);
  const std::string journal = tree.scratch / "reap.jsonl";
  const std::string earlier = R"({"at":"2026-11-24T10:00:00.000Z","event":"start","items":1,"planned_removals":1})";
  test::write_file(journal, test::to_bytes(earlier + "\n{\"at\":\"2026-11-24T10:00:00.001Z\",\"event\":\"unlin"));
  ASSERT_EQ(::chmod(journal.c_str(), 0600), 0);
  int rc = -1;
  reap_json(tree.tmp, {"--min-age", "0", "--journal", journal}, &rc);
  EXPECT_EQ(rc, 0);
  std::ifstream in(journal);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], earlier);
  EXPECT_TRUE(json::parse(lines[1], nullptr, false).is_discarded()) << "the cut line is kept as it was";
  EXPECT_EQ(json::parse(lines[2]).at("event"), "incomplete-line");
  EXPECT_EQ(json::parse(lines[3]).at("event"), "start");
  for (std::size_t i = 2; i < lines.size(); ++i) EXPECT_FALSE(json::parse(lines[i], nullptr, false).is_discarded()) << lines[i];
}

// SIGKILL in the middle of a run: every entry is either still there or gone (one unlink each,
// nothing renamed or half-written), and every entry that is gone has its write-ahead line in
// the journal; at most one line per acting thread lacks its outcome.
TEST(ReapCli, KilledMidRunLeavesEveryEntryWholeAndJournalled) {
  ReapTree tree;
  std::vector<std::string> namespaces = {tree.make_namespace("nobody", kNobody, kNogroup),
                                         tree.make_namespace("daemon", 1, 1)};
  std::set<std::string> files;
  // Enough files that the kill comes mid-run on a loaded machine: the run acts on a
  // namespace's part with both threads, and 3,000 files were sometimes all gone before the
  // test, polling the journal, was scheduled again.
  for (int i = 0; i < 9000; ++i) files.insert(tree.stale_file(namespaces[i % 2]));
  const std::string journal = tree.scratch / "reap.jsonl";

  const std::string binary_path = test::tool_path();
  const char* binary = binary_path.c_str();
  const char* argv[] = {binary,      "reap",      "--tmpdir",      tree.tmp.c_str(), "--min-age", "0",
                        "--no-lock", "--journal", journal.c_str(), "--format",       "json",      nullptr};
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(binary, const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(null);
  ASSERT_GT(child, 0);
  // Stop it once it has journalled a few removals, then kill it: stopped, what it wrote is
  // what the kill leaves (or give up waiting and kill anyway, which the test then fails).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(journal);
    const auto lines = std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
    if (lines >= 40) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // The kill waits until every thread has stopped: a thread inside a write finishes it first.
  // A SIGKILL that lands inside a write can cut its line short (the kernel stops copying at a
  // page), which the next run ends and marks (ReapCli.JournalLineCutShortByAnEarlierRun...); here
  // every line the run wrote is to be whole.
  ::kill(child, SIGSTOP);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, WUNTRACED), child);
  const bool stopped = WIFSTOPPED(status);
  if (stopped) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  ASSERT_TRUE(stopped && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the run ended before the kill";

  std::set<std::string> unlinking, outcome;
  bool finished = false;
  std::ifstream in(journal);
  for (std::string line; std::getline(in, line);) {
    const json l = json::parse(line);
    if (l.at("event") == "unlinking") unlinking.insert(l.at("path"));
    if (l.at("event") == "outcome") outcome.insert(l.at("path"));
    if (l.at("event") == "finish") finished = true;
  }
  std::size_t gone = 0;
  for (const std::string& f : files) {
    if (exists(f)) continue;
    ++gone;
    EXPECT_TRUE(unlinking.contains(f)) << f << " is gone without a journal line";
  }
  for (const std::string& f : outcome) EXPECT_FALSE(exists(f)) << f << " reported removed";
  EXPECT_GE(unlinking.size(), outcome.size());
  EXPECT_LE(unlinking.size() - outcome.size(), 2u) << "more removals in flight than threads";
  // Nothing but the stale files ever lived in the namespaces: no temp names, no leftovers.
  std::size_t entries = 0;
  for (const std::string& ns : namespaces) entries += tree.count_entries(ns);
  EXPECT_EQ(entries, files.size() - gone);
  RecordProperty("removed_before_kill", static_cast<int>(gone));
  // The kill came mid-run, or this test tested nothing.
  EXPECT_FALSE(finished) << "the run finished before the kill";
  EXPECT_GT(gone, 0u) << "killed before any removal";
  EXPECT_LT(gone, files.size()) << "every file was removed before the kill";
}

// ---- PID reuse --------------------------------------------------------------------------------

// A real JVM region under the pid of a live sleep: the sleep started long after that VM
// began, so the pid was reused and the file is stale. Hidden behind an empty directory
// mounted over /proc/<pid> (in a private mount namespace), the same process can no longer be
// told apart from the file's owner: unknown, and kept.
TEST(ReapCli, PidReusedBySleepIsReapedUnlessItsProcEntryIsUnreadable) {
  if (test::find_program("sleep").empty()) GTEST_SKIP() << "no sleep";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  Sleeper sleeper;
  ASSERT_TRUE(sleeper.start());
  const std::string file = tree.region_file(ns, std::to_string(sleeper.pid()));

  int rc = -1;
  const json dry = reap_json(tree.tmp, {"--dry-run", "--min-age", "0"}, &rc);
  ASSERT_EQ(dry.at("plan").size(), 1u);
  EXPECT_EQ(dry.at("plan")[0].at("verdict"), "pid-reused") << dry.at("plan")[0].dump(2);
  EXPECT_EQ(dry.at("plan")[0].at("reason"), "started-after-vm-begin");
  EXPECT_EQ(dry.at("plan")[0].at("action"), "remove");

  if (test::is_root() && !test::find_program("unshare").empty()) {
    const std::string empty = tree.scratch / "empty";
    ASSERT_EQ(::mkdir(empty.c_str(), 0755), 0);
    const std::string report = tree.scratch / "hidden.json";
    const auto hidden = run(
        {"unshare", "-m", "--propagation", "private", "sh", "-c",
         "mount --bind '" + empty + "' /proc/" + std::to_string(sleeper.pid()) + " && exec '" +
             test::tool_path() + "' reap --tmpdir '" + tree.tmp +
             "' --min-age 0 --no-lock --format json --output '" + report + "'"});
    ASSERT_EQ(hidden.exit_code, 0) << hidden.err;
    const json doc = json::parse(std::ifstream(report));
    ASSERT_EQ(doc.at("plan").size(), 1u);
    EXPECT_EQ(doc.at("plan")[0].at("verdict"), "unknown") << doc.at("plan")[0].dump(2);
    EXPECT_EQ(doc.at("plan")[0].at("action"), "keep");
    EXPECT_TRUE(doc.at("actions").empty());
    EXPECT_TRUE(exists(file));
  }

  const json done = reap_json(tree.tmp, {"--min-age", "0"}, &rc);
  EXPECT_EQ(rc, 0);
  ASSERT_EQ(done.at("actions").size(), 1u);
  EXPECT_EQ(done.at("actions")[0].at("outcome"), "removed");
  EXPECT_FALSE(exists(file));
  EXPECT_TRUE(sleeper.alive());
}

// Liveness reads each process once however many files name it (platform/liveness.hpp), and a
// gone one is remembered as a bit: three namespaces whose stale files share one gone pid cost
// one probe of it (kill(pid, 0), the first call of every process read), not three. strace
// counts the probes of that pid; each file is still judged stale.
TEST(ReapCli, AGonePidNamedInSeveralNamespacesIsProbedOnce) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (namespaces of other users)";
  if (!test::have_program("strace")) GTEST_FAIL() << "strace is needed (apt-get install strace)";
  ReapTree tree;
  const pid_t pid = dead_pid();
  ASSERT_NE(pid, 0);
  const std::string name = std::to_string(pid);
  for (const auto& [user, uid] : std::vector<std::pair<std::string, uid_t>>{{"nobody", kNobody}, {"daemon", 1}, {"bin", 2}}) {
    tree.region_file(tree.make_namespace(user, uid, uid == kNobody ? kNogroup : uid), name);
  }
  const std::string trace = tree.scratch / "kill.trace";
  const auto r = run({"strace", "-f", "-qq", "-o", trace, "-e", "trace=kill", "env", test::traced_asan_options(),
                      test::tool_path(), "reap", "--dry-run", "--no-lock", "--min-age", "0", "--tmpdir", tree.tmp,
                      "--no-containers", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("plan").size(), 3u) << r.out;
  for (const auto& item : doc.at("plan")) EXPECT_EQ(item.at("verdict"), "stale") << item.dump(2);
  std::size_t probes = 0;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) {
    if (line.find("kill(" + name + ", 0)") != std::string::npos) ++probes;
  }
  EXPECT_EQ(probes, 1u) << text_of(trace);
}

// ---- Real JVMs ---------------------------------------------------------------------------------

TEST(ReapJvm, RemovesExactlyTheStaleFilesAndEveryLiveJvmStaysVisible) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (mount namespaces, another user)";
  if (!test::have_jdk() || test::find_program("jps").empty()) GTEST_SKIP() << "no JDK";
  ReapTree tree;
  PrivateTmpJvms jvms(tree);
  ASSERT_TRUE(jvms.prepare());
  // Live: two of root's, one of nobody's. Killed: one of each.
  PrivateTmpJvm& live_root_a = jvms.start(0, 0);
  PrivateTmpJvm& live_root_b = jvms.start(0, 0);
  PrivateTmpJvm& live_nobody = jvms.start(kNobody, kNogroup);
  PrivateTmpJvm& dead_root = jvms.start(0, 0);
  PrivateTmpJvm& dead_nobody = jvms.start(kNobody, kNogroup);
  for (PrivateTmpJvm* j : {&live_root_a, &live_root_b, &live_nobody, &dead_root, &dead_nobody}) {
    ASSERT_TRUE(j->wait_ready()) << j->describe();
  }
  ASSERT_TRUE(dead_root.kill9());
  ASSERT_TRUE(dead_nobody.kill9());
  ASSERT_TRUE(exists(dead_root.backing_file()));
  ASSERT_TRUE(exists(dead_nobody.backing_file()));

  int rc = -1;
  const json doc = reap_json(tree.tmp, {"--min-age", "0"}, &rc);
  EXPECT_EQ(rc, 0) << doc.dump(2);
  std::set<std::string> removed;
  for (const auto& a : doc.at("actions")) {
    EXPECT_EQ(a.at("outcome"), "removed") << a.dump();
    removed.insert(a.at("path"));
  }
  EXPECT_EQ(removed, (std::set<std::string>{dead_root.backing_file(), dead_nobody.backing_file()}));
  for (const auto& item : doc.at("plan")) {
    if (removed.contains(item.at("path"))) {
      EXPECT_EQ(item.at("verdict"), "stale") << item.dump();
    } else {
      EXPECT_EQ(item.at("verdict"), "live") << item.dump();
      EXPECT_EQ(item.at("reason"), "lock-held") << item.dump();
    }
  }
  EXPECT_FALSE(exists(dead_root.backing_file()));
  EXPECT_FALSE(exists(dead_nobody.backing_file()));

  // jps finds them through /proc/<pid>/root/tmp; jstat reads each one.
  const auto jps = run({test::find_program("jps"), "-J-XX:-UsePerfData", "-q"});
  ASSERT_EQ(jps.exit_code, 0) << jps.err;
  std::set<std::string> listed;
  std::istringstream lines(jps.out);
  for (std::string line; std::getline(lines, line);) listed.insert(line);
  for (PrivateTmpJvm* j : {&live_root_a, &live_root_b, &live_nobody}) {
    ASSERT_TRUE(exists(j->backing_file()));
    EXPECT_TRUE(listed.contains(std::to_string(j->pid()))) << jps.out;
    const auto jstat = run({test::find_program("jstat"), "-J-XX:-UsePerfData", "-gcutil",
                            std::to_string(j->pid())});
    EXPECT_EQ(jstat.exit_code, 0) << jstat.out << jstat.err;
    EXPECT_NE(jstat.out.find("YGC"), std::string::npos) << jstat.out;
  }
}

// ---- Packaging ------------------------------------------------------------------------------

const std::string kPackaging = HSPERFGUARD_SOURCE_DIR "/packaging";

// systemd-analyze verify needs the units' whole world: a root with this system's units, the
// binary where the units expect it, and ours.
TEST(ReapPackaging, SystemdUnitsVerify) {
  namespace fs = std::filesystem;
  if (test::find_program("systemd-analyze").empty() ||
      !exists("/usr/lib/systemd/system/sysinit.target")) {
    GTEST_SKIP() << "no systemd-analyze or system units";
  }
  test::ScratchDir root;
  std::error_code ec;
  fs::create_directories(root / "usr/lib/systemd", ec);
  fs::copy("/usr/lib/systemd/system", root / "usr/lib/systemd/system",
           fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  ASSERT_FALSE(ec) << ec.message();
  fs::create_directories(root / "usr/local/bin", ec);
  fs::copy_file(test::tool_path(), root / "usr/local/bin/hsperfguard", ec);
  ASSERT_FALSE(ec) << ec.message();
  const std::string units = root / "etc/systemd/system";
  fs::create_directories(units, ec);
  std::string names;
  for (const auto& e : fs::directory_iterator(kPackaging + "/systemd")) {
    fs::copy_file(e.path(), units + "/" + e.path().filename().string(), ec);
    names += " " + e.path().filename().string();
  }
  ASSERT_EQ(names.empty(), false);
  const auto verify = run({"sh", "-c", "cd '" + units + "' && systemd-analyze verify --man=no --root='" +
                                           root.path() + "'" + names});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_EQ(verify.err, "") << verify.err;
}

// The tmpfiles.d snippet, as shipped, under the real systemd-tmpfiles --clean, in a private
// mount namespace whose /tmp is a tmpfs of its own. The tree: what a JVM of pid P makes (its
// backing file, an attach socket no listener of this network namespace holds, as a JVM in a
// container with its own network sharing this /tmp, and jcmd's trigger), a namespace with no
// file (as `hsperfguard create` leaves it), and what a user makes under those names. Every
// entry's atime and mtime are set 3 days back and its ctime (which cannot be set) is let age
// past the line for /tmp's 1 s. The paths still there afterwards come back.
std::set<std::string> tmpfiles_clean_survivors(const std::string& tmp_line, std::string* log) {
  const std::string script = R"SH(
set -e
P=$$
mkdir -p /tmp/hsperfdata_bob/stuff /tmp/hsperfdata_carol /tmp/.java_pid_data /run/victim
echo region > /tmp/hsperfdata_bob/$P
echo region > /tmp/hsperfdata_bob/4194304
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' /tmp/.java_pid$P
: > /tmp/.attach_pid$P
echo notes > /tmp/hsperfdata_bob/notes.txt
echo data > /tmp/hsperfdata_bob/stuff/data
echo data > /tmp/hsperfdata_bob/0123
echo data > /tmp/hsperfdata_bob/1junk
echo data > /tmp/hsperfdata_bob/41943040
echo data > /tmp/.java_pid_data/data
echo data > /tmp/.java_pidX
echo data > /tmp/.attach_pid1junk
echo data > /tmp/old-junk
echo precious > /run/victim/precious
ln -s /run/victim /tmp/hsperfdata_evil
chown -R 65534:65534 /tmp/hsperfdata_bob /tmp/hsperfdata_carol /tmp/.java_pid_data /tmp/.java_pidX /tmp/.attach_pid1junk
chown -h 65534:65534 /tmp/hsperfdata_evil
# -xdev: a checkout under /tmp is bound back into this namespace (test_support): never touched.
find /tmp /run/victim -xdev -mindepth 1 -depth -exec touch -h -d '3 days ago' {} +
printf '%s\n' ")SH" + tmp_line + R"SH(" > /run/tmp.conf
sleep 2
# Its debug log says why each entry was kept or removed: what a failure shows.
SYSTEMD_LOG_LEVEL=debug systemd-tmpfiles --clean /run/tmp.conf "$SNIPPET" >&2
find /tmp /run/victim -xdev -mindepth 1 | sed -e "s|/$P\$|/P|" -e "s|_pid$P\$|_pidP|" | sort
)SH";
  const auto r = test::run_in_private_mounts("SNIPPET='" + kPackaging + "/tmpfiles.d/hsperfguard.conf'\n" + script);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  *log = r.err;
  std::set<std::string> paths;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) paths.insert(line);
  return paths;
}

const std::set<std::string> kJvmNamed = {"/tmp/hsperfdata_bob", "/tmp/hsperfdata_bob/P",
                                         "/tmp/hsperfdata_bob/4194304", "/tmp/.java_pidP", "/tmp/.attach_pidP",
                                         "/tmp/hsperfdata_carol"};
const std::set<std::string> kUserMade = {
    "/tmp/hsperfdata_bob/notes.txt", "/tmp/hsperfdata_bob/stuff", "/tmp/hsperfdata_bob/stuff/data",
    "/tmp/hsperfdata_bob/0123",      "/tmp/hsperfdata_bob/1junk", "/tmp/hsperfdata_bob/41943040",
    "/tmp/.java_pid_data",           "/tmp/.java_pid_data/data",  "/tmp/.java_pidX",
    "/tmp/.attach_pid1junk"};

// Where /tmp is aged (upstream's `q /tmp 1777 root root 10d`, here 1 s; `D` alike): the JVM's
// pid-named files and the namespace directories stay, what a user made under those names goes
// with the rest. A symbolic link named like a namespace is not followed: its target's files
// stay.
TEST(ReapPackaging, TmpfilesSnippetKeepsPidNamedFilesAndCleansWhatUsersMakeUnderThoseNames) {
  if (test::find_program("systemd-tmpfiles").empty()) GTEST_SKIP() << "no systemd-tmpfiles (Debian: systemd)";
  if (!test::is_root()) GTEST_SKIP() << "a private mount namespace with its own /tmp: needs root";
  for (const std::string tmp_line : {"q /tmp 1777 root root 1s", "D /tmp 1777 root root 1s"}) {
    SCOPED_TRACE(tmp_line);
    std::string log;
    const std::set<std::string> left = tmpfiles_clean_survivors(tmp_line, &log);
    EXPECT_FALSE(left.contains("/tmp/old-junk")) << "the age rule did not apply: the test proves nothing";
    for (const std::string& path : kJvmNamed) EXPECT_TRUE(left.contains(path)) << path << " was removed\n" << log;
    for (const std::string& path : kUserMade) EXPECT_FALSE(left.contains(path)) << path << " was kept\n" << log;
    EXPECT_TRUE(left.contains("/run/victim/precious")) << "the link was followed";
    std::string kept;
    for (const std::string& path : left) kept += " " + path;
    std::printf("%s: left%s\n", tmp_line.c_str(), kept.c_str());
  }
}

// Where /tmp is not aged (Debian 12's `D /tmp 1777 root root -`), the snippet ages nothing
// either: its `X` line takes the age of the line for /tmp, here none.
TEST(ReapPackaging, TmpfilesSnippetAgesNothingWhereTmpIsNotAged) {
  if (test::find_program("systemd-tmpfiles").empty()) GTEST_SKIP() << "no systemd-tmpfiles (Debian: systemd)";
  if (!test::is_root()) GTEST_SKIP() << "a private mount namespace with its own /tmp: needs root";
  std::string log;
  const std::set<std::string> left = tmpfiles_clean_survivors("D /tmp 1777 root root -", &log);
  for (const auto* paths : {&kJvmNamed, &kUserMade}) {
    for (const std::string& path : *paths) EXPECT_TRUE(left.contains(path)) << path << " was removed\n" << log;
  }
  EXPECT_TRUE(left.contains("/tmp/old-junk"));
}

// The command lines the units and the cron job run are accepted as they are (only the paths
// are moved into a scratch dir, and the run is a dry one).
TEST(ReapPackaging, ShippedCommandLinesAreAccepted) {
  ReapTree tree;
  tree.stale_file(tree.make_namespace("nobody", kNobody, kNogroup));
  std::vector<std::string> lines;
  std::ifstream cron(kPackaging + "/cron.d/hsperfguard");
  for (std::string line; std::getline(cron, line);) {
    if (const auto at = line.find("hsperfguard reap "); at != std::string::npos && !line.starts_with("#")) {
      lines.push_back(line.substr(at + 12, line.find(" 2>&1") - at - 12));
    }
  }
  for (const char* unit : {"hsperfguard-reap.service", "hsperfguard-audit.service"}) {
    std::ifstream in(kPackaging + "/systemd/" + unit);
    std::string command, line;
    bool in_exec = false;
    while (std::getline(in, line)) {
      if (line.starts_with("ExecStart=")) {
        in_exec = true;
        line = line.substr(std::string("ExecStart=").size());
      }
      if (!in_exec) continue;
      const bool continued = line.ends_with("\\");
      command += (continued ? line.substr(0, line.size() - 1) : line) + " ";
      if (!continued) break;
    }
    ASSERT_TRUE(command.starts_with("/usr/local/bin/hsperfguard ")) << command;
    lines.push_back(command.substr(std::string("/usr/local/bin/hsperfguard ").size()));
  }
  ASSERT_EQ(lines.size(), 3u);
  for (std::string args : lines) {
    for (const std::string dir : {"/var/lib/hsperfguard", "/var/log/hsperfguard", "/run/hsperfguard"}) {
      for (auto at = args.find(dir); at != std::string::npos; at = args.find(dir)) {
        args.replace(at, dir.size(), tree.scratch.path());
      }
    }
    std::vector<std::string> argv;
    std::istringstream words(args);
    // --syslog as written: where nothing receives messages at /dev/log the lines go to stderr
    // (the cron jobs run whole, with a receiver, in Unattended.CronJobsKeepTheirExitStatusAndStillLog).
    for (std::string w; words >> w;) argv.push_back(w);
    argv.insert(argv.end(), {"--tmpdir", tree.tmp});
    if (argv.at(0) == "reap") argv.push_back("--dry-run");
    const auto result = run_tool(argv);
    EXPECT_TRUE(result.exit_code == 0 || (argv.at(0) == "audit" && result.exit_code == 1))
        << args << ": " << result.exit_code << " " << result.err;
  }
}

}  // namespace
}  // namespace hsperfguard
