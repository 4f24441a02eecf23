// The reaper under attack (Linux). Each test is named after the attack: the world is changed
// between the plan and its execution (deterministically, by the test), or all the time while
// the reaper runs (a swapping thread, for at least 1,000 runs). What must hold every time:
// nothing outside the namespace is removed or changed, nothing the plan did not judge is
// removed, and every refusal is reported.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_posix.hpp"
#include "commands/reap_command.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/reap.hpp"
#include "reap_test_support.hpp"
#include "report/reap_report.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using namespace reaptest;

nlink_t links_of(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_nlink : 0;
}

TEST(ReapRace, NamespaceSwappedForASymlinkBetweenPlanAndExecution) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, stale), "remove");

  // The attacker's directory holds a sentinel under the very name the plan will unlink.
  const std::string theirs = tree.outside + "/theirs";
  ASSERT_EQ(::mkdir(theirs.c_str(), 0777), 0);
  const std::string bait = tree.sentinel_in(theirs, basename(stale));
  ASSERT_EQ(::rename(ns.c_str(), (tree.tmp + "/moved").c_str()), 0);
  ASSERT_EQ(::symlink(theirs.c_str(), ns.c_str()), 0);

  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, stale), ReapOutcome::changed);
  EXPECT_EQ(record_of(run, result, stale)->detail, "namespace-changed");
  EXPECT_TRUE(exists(bait));
  EXPECT_TRUE(exists(tree.tmp + "/moved/" + basename(stale)));
  EXPECT_TRUE(tree.sentinels_intact());
}

TEST(ReapRace, NamespaceReplacedByAnotherUsersDirectory) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to create another user's directory";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, stale), "remove");

  // Same name, same owner even, same file names: another directory all the same.
  ASSERT_EQ(::rename(ns.c_str(), (tree.tmp + "/old").c_str()), 0);
  tree.make_namespace("nobody", 1, 1);  // daemon's now
  const std::string same_name = tree.sentinel_in(ns, basename(stale));
  const auto other_owner = platform::execute_plan(run.plan, {});
  EXPECT_EQ(record_of(run, other_owner, stale)->detail, "namespace-changed");
  ASSERT_EQ(::chown(ns.c_str(), kNobody, kNogroup), 0);
  const auto same_owner = platform::execute_plan(run.plan, {});
  EXPECT_EQ(record_of(run, same_owner, stale)->detail, "namespace-changed");
  EXPECT_TRUE(exists(same_name));
  EXPECT_TRUE(tree.sentinels_intact());
}

TEST(ReapRace, TempDirSwappedBetweenPlanAndExecution) {
  ReapTree tree;
  const std::string stale = tree.stale_file(tree.make_namespace("nobody", kNobody, kNogroup));
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(::rename(tree.tmp.c_str(), (tree.scratch / "tmp.old").c_str()), 0);
  ASSERT_EQ(::mkdir(tree.tmp.c_str(), 01777), 0);
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(record_of(run, result, stale)->detail, "temp-dir-changed");
  EXPECT_TRUE(exists(tree.scratch / ("tmp.old/hsperfdata_nobody/" + basename(stale))));
}

// The temp dir replaced by another file system's directory of the same inode number: every
// tmpfs root is inode 1, and a container tenant may mount a new tmpfs over her /tmp between
// the plan and the act, with the same namespace and the same stale file in it (same owner,
// same inode numbers too: tmpfs counts them from the same start). Only the device tells them
// apart; the root is refused and neither tmpfs loses anything. In a private mount namespace.
TEST(ReapRace, TempDirReplacedByAnotherTmpfsWithTheSameInodeNumber) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount";
  ReapTree tree;
  const test::ChildResult child = test::run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return "unshare: " + std::string(std::strerror(errno));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "mount private failed";
    if (::mount("tmpfs", tree.tmp.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
      return "mount tmpfs: " + std::string(std::strerror(errno));
    }
    const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
    const std::string stale = tree.stale_file(ns);
    struct stat planned {};
    ::stat(tree.tmp.c_str(), &planned);
    ReapRun run = plan_in(tree.tmp);
    if (action_of(run, stale) != "remove") return "planned " + action_of(run, stale);
    // The planned tmpfs, held to look at it once it is covered.
    const platform::UniqueFd old_root(::open(tree.tmp.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));

    if (::mount("tmpfs", tree.tmp.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
      return "mount the second tmpfs: " + std::string(std::strerror(errno));
    }
    tree.make_namespace("nobody", kNobody, kNogroup);
    tree.file_in(ns, basename(stale), jvm_region());
    struct stat now {};
    ::stat(tree.tmp.c_str(), &now);
    std::ostringstream out;
    out << "same inode " << (now.st_ino == planned.st_ino) << ", same device " << (now.st_dev == planned.st_dev)
        << "\n";

    const auto result = platform::execute_plan(run.plan, {});
    const ReapActionRecord* r = record_of(run, result, stale);
    out << (r == nullptr ? "not attempted" : std::string(to_string(r->outcome)) + " " + r->detail) << "\n";
    struct stat st {};
    out << "planned tmpfs keeps it " << (::fstatat(old_root.get(), ("hsperfdata_nobody/" + basename(stale)).c_str(),
                                                     &st, AT_SYMLINK_NOFOLLOW) == 0)
        << ", new tmpfs keeps it " << exists(stale) << "\n";
    return out.str();
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out,
            "same inode 1, same device 0\n"
            "failed temp-dir-changed\n"
            "planned tmpfs keeps it 1, new tmpfs keeps it 1\n");
}

TEST(ReapRace, StaleFileSwappedForASymlinkToASentinel) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  const std::string sentinel = tree.sentinel("symlink-target");
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(::unlink(stale.c_str()), 0);
  ASSERT_EQ(::symlink(sentinel.c_str(), stale.c_str()), 0);
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, stale), ReapOutcome::changed);
  EXPECT_TRUE(exists(stale));  // the link the plan never judged stays, and so does its target
  EXPECT_TRUE(tree.sentinels_intact());
}

TEST(ReapRace, StaleFileSwappedForAHardLinkToASentinel) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  const std::string sentinel = tree.sentinel("hardlink-target");
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(::unlink(stale.c_str()), 0);
  ASSERT_EQ(::link(sentinel.c_str(), stale.c_str()), 0);
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, stale), ReapOutcome::changed);
  EXPECT_EQ(links_of(sentinel), 2u);  // the attacker's link is not ours to drop either
  EXPECT_TRUE(tree.sentinels_intact());

  // Planted before the plan: a hard link is never planned for removal.
  ReapRun planted = plan_in(tree.tmp);
  EXPECT_EQ(action_of(planted, stale), "skip");
  EXPECT_EQ(item_of(planted, stale)->why, "hard-linked");
}

TEST(ReapRace, FifoSwappedInForAStaleFileNeverBlocksAndIsKept) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(::unlink(stale.c_str()), 0);
  ASSERT_EQ(::mkfifo(stale.c_str(), 0600), 0);  // opening it for reading would block a reader
  const auto t0 = std::chrono::steady_clock::now();
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_EQ(outcome_of(run, result, stale), ReapOutcome::changed);
  EXPECT_TRUE(exists(stale));
}

TEST(ReapRace, StaleFileSwappedForADeviceNode) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to make a device node";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(::unlink(stale.c_str()), 0);
  ASSERT_EQ(::mknod(stale.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);  // a null device
  const auto result = platform::execute_plan(run.plan, {});
  EXPECT_EQ(outcome_of(run, result, stale), ReapOutcome::changed);
  struct stat st {};
  ASSERT_EQ(::lstat(stale.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(ReapRace, FifoPlantedInANamespaceGoesOnlyWithIncludeSpecial) {
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string fifo = ns + "/" + std::to_string(dead_pid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::chown(fifo.c_str(), kNobody, kNogroup), 0);
  int rc = -1;
  const auto plain = reap_json(tree.tmp, {"--min-age", "0"}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(plain.at("plan").at(0).at("why"), "special-file");
  EXPECT_TRUE(exists(fifo));
  const auto special = reap_json(tree.tmp, {"--min-age", "0", "--include-special"}, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(special.at("actions").at(0).at("outcome"), "removed");
  EXPECT_FALSE(exists(fifo));
}

// ---- The swap loop ---------------------------------------------------------------------------

// One round's world: a namespace with stale files and bait; a decoy directory holding hard
// links to sentinels under the stale files' names; a symlink to the decoy. A thread swaps
// names (renameat2 RENAME_EXCHANGE: atomic) as fast as it can while the reaper observes,
// plans and executes.
struct Round {
  std::string ns, decoy, decoy_link;
  std::vector<std::string> stale;            // names in the namespace
  std::set<ino_t> removable;                 // inodes the reaper may remove
  std::vector<std::string> decoy_links;      // must all survive
  std::vector<std::string> namespace_links;  // hard links to sentinels in the namespace
};

class Swapper {
 public:
  Swapper(const std::string& tmp, const Round& round) : tmp_(tmp), round_(round) {}
  ~Swapper() { stop(); }
  void start() {
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }
  std::size_t swaps() const { return swaps_; }

 private:
  void loop() {
    const int tmp = ::open(tmp_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const std::string ns_name = basename(round_.ns);
    const std::string decoy_name = basename(round_.decoy);
    const std::string link_name = basename(round_.decoy_link);
    std::size_t i = 0;
    while (running_) {
      const int ns = ::openat(tmp, ns_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      const std::string& victim = round_.stale[i % round_.stale.size()];
      switch (i % 4) {
        case 0:  // a stale file and the symlink bait trade places
          if (ns >= 0) ::renameat2(ns, victim.c_str(), ns, "bait-symlink", RENAME_EXCHANGE);
          break;
        case 1:  // a stale file and the hard link bait
          if (ns >= 0) ::renameat2(ns, victim.c_str(), ns, "bait-hardlink", RENAME_EXCHANGE);
          break;
        case 2:  // the namespace and the decoy directory
          ::renameat2(tmp, ns_name.c_str(), tmp, decoy_name.c_str(), RENAME_EXCHANGE);
          break;
        case 3:  // the namespace and a symlink to the decoy
          ::renameat2(tmp, ns_name.c_str(), tmp, link_name.c_str(), RENAME_EXCHANGE);
          break;
      }
      if (ns >= 0) ::close(ns);
      ++i;
      ++swaps_;
    }
    ::close(tmp);
  }

  std::string tmp_;
  const Round& round_;
  std::thread thread_;
  std::atomic<bool> running_{true};
  std::atomic<std::size_t> swaps_{0};
};

ino_t inode_of(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST(ReapRace, SwapsInALoopWhileReapRunsAThousandTimes) {
  constexpr int kRounds = 1000;
  const auto budget = std::chrono::seconds(240);  // a loaded 2-core CI machine
  ReapTree tree;
  const std::string sentinel_a = tree.sentinel("loop-a");
  const std::string sentinel_b = tree.sentinel("loop-b");
  const std::string symlink_target = tree.sentinel("loop-symlink-target");
  const nlink_t a_links = links_of(sentinel_a), b_links = links_of(sentinel_b);
  const bool root = test::is_root();
  const uid_t owner = root ? kNobody : ::geteuid();
  const gid_t group = root ? kNogroup : ::getegid();

  std::map<std::string, std::size_t> outcomes;
  std::size_t swaps = 0;
  int rounds = 0;
  const auto started = std::chrono::steady_clock::now();
  for (; rounds < kRounds && std::chrono::steady_clock::now() - started < budget; ++rounds) {
    Round round;
    round.ns = tree.make_namespace("nobody", owner, group);
    round.decoy = tree.tmp + "/decoy";
    round.decoy_link = tree.tmp + "/decoy-link";
    ASSERT_EQ(::mkdir(round.decoy.c_str(), 0755), 0);
    ASSERT_EQ(::chown(round.decoy.c_str(), owner, group), 0);
    ASSERT_EQ(::symlink(round.decoy.c_str(), round.decoy_link.c_str()), 0);
    const ino_t decoy_ino = inode_of(round.decoy);
    for (int i = 0; i < 3; ++i) {
      const std::string path = tree.stale_file(round.ns);
      round.stale.push_back(basename(path));
      round.removable.insert(inode_of(path));
      // In the decoy, the same name is a sentinel's second link.
      const std::string decoy_entry = round.decoy + "/" + basename(path);
      ASSERT_EQ(::link(i % 2 == 0 ? sentinel_a.c_str() : sentinel_b.c_str(), decoy_entry.c_str()), 0);
      round.decoy_links.push_back(decoy_entry);
    }
    const std::string bait_symlink = round.ns + "/bait-symlink";
    ASSERT_EQ(::symlink(symlink_target.c_str(), bait_symlink.c_str()), 0);
    ::lchown(bait_symlink.c_str(), owner, group);
    round.removable.insert(inode_of(bait_symlink));  // a foreign link in the namespace: fair game
    const std::string bait_hardlink = round.ns + "/bait-hardlink";
    ASSERT_EQ(::link(sentinel_a.c_str(), bait_hardlink.c_str()), 0);
    round.namespace_links.push_back(bait_hardlink);

    // Every inode anywhere in the tree before the run.
    std::map<ino_t, std::string> before;
    for (const std::string& dir : {round.ns, round.decoy, tree.outside}) {
      for (const auto& e : std::filesystem::directory_iterator(dir)) {
        before[inode_of(e.path().string())] = e.path().string();
      }
    }

    Swapper swapper(tree.tmp, round);
    swapper.start();
    ReapRun run = plan_in(tree.tmp);
    const auto result = platform::execute_plan(run.plan, {});
    swapper.stop();
    swaps += swapper.swaps();
    for (const auto& r : result.actions) ++outcomes[r.detail];

    // Whatever the swaps did, put names back where they are now and look: every inode that
    // is gone must be one the reaper was allowed to remove.
    std::set<ino_t> after;
    for (const std::string& dir : {tree.tmp + "/hsperfdata_nobody", tree.tmp + "/decoy",
                                   tree.tmp + "/decoy-link", tree.outside}) {
      struct stat st {};
      if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
      for (const auto& e : std::filesystem::directory_iterator(dir)) after.insert(inode_of(e.path().string()));
    }
    for (const auto& [ino, path] : before) {
      if (!after.contains(ino)) {
        ASSERT_TRUE(round.removable.contains(ino)) << "round " << rounds << ": removed " << path;
      }
    }
    ASSERT_TRUE(tree.sentinels_intact()) << "round " << rounds;
    // The decoy is never entered: its links to the sentinels all survive, wherever the
    // swaps left it.
    for (const std::string& where : {tree.tmp + "/hsperfdata_nobody", tree.tmp + "/decoy",
                                     tree.tmp + "/decoy-link"}) {
      if (inode_of(where) != decoy_ino) continue;
      for (const std::string& link : round.decoy_links) {
        ASSERT_TRUE(exists(where + "/" + basename(link))) << "round " << rounds << ": " << link;
      }
    }
    ASSERT_EQ(links_of(sentinel_b), b_links + 1) << "round " << rounds;
    // The one link the namespace itself holds may only go when the name was swapped in the
    // instant before its unlink, and then the executor says so.
    std::size_t swapped = 0;
    for (const auto& r : result.actions) swapped += r.detail == "swapped-during-unlink" ? 1 : 0;
    const nlink_t a_now = links_of(sentinel_a);
    ASSERT_TRUE(a_now == a_links + 3 || (a_now == a_links + 2 && swapped > 0))
        << "round " << rounds << ": " << a_now << " links, " << swapped << " swapped unlinks";

    // Clean up for the next round (as the test, not the reaper).
    for (const std::string& dir : {tree.tmp + "/hsperfdata_nobody", tree.tmp + "/decoy",
                                   tree.tmp + "/decoy-link"}) {
      std::error_code ec;
      struct stat st {};
      if (::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        ::unlink(dir.c_str());
      } else {
        std::filesystem::remove_all(dir, ec);
      }
    }
  }
  const auto took = std::chrono::steady_clock::now() - started;
  std::string summary;
  for (const auto& [detail, n] : outcomes) summary += detail + "=" + std::to_string(n) + " ";
  RecordProperty("rounds", rounds);
  RecordProperty("swaps", static_cast<int>(swaps));
  RecordProperty("outcomes", summary);
  std::printf("%d rounds, %zu swaps in %lld ms: %s\n", rounds, swaps,
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()),
              summary.c_str());
  EXPECT_GE(rounds, kRounds) << "ran out of time";
  // The swaps did race the reaper: some removals were refused.
  EXPECT_GT(outcomes["identity-changed"] + outcomes["namespace-changed"] + outcomes["not-found"] +
                outcomes["renamed-while-locked"] + outcomes["hard-linked"] +
                outcomes["swapped-during-unlink"],
            0u)
      << summary;
}

// ---- Between two system calls of the reaper ---------------------------------------------------
// The attacks above land between the plan and its execution. These land inside the removal
// of one entry, at the instant named: the reaper runs under strace, which holds it after its
// flock on the entry (a `delay_exit` injection) while the test acts.

// Runs argv with stdout into `out_path` and calls `on_line` with each line of its stderr as it
// comes. Returns the wait status, or -1 if it did not end within `timeout` (it is then killed).
int run_reading_stderr(const std::vector<std::string>& argv, const std::string& out_path,
                       const std::function<void(const std::string&)>& on_line,
                       std::chrono::seconds timeout) {
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) return -1;
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) return -1;
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::dup2(out, 1) < 0 || ::dup2(err[1], 2) < 0) ::_exit(120);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out);
  ::close(err[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string pending;
  char buf[4096];
  bool ended = false;
  while (!ended) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{err[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::read(err[0], buf, sizeof buf);
    if (n <= 0) ended = true;
    if (n > 0) pending.append(buf, static_cast<std::size_t>(n));
    for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
      on_line(pending.substr(0, eol));
      pending.erase(0, eol + 1);
    }
  }
  ::close(err[0]);
  if (!ended) ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return ended ? status : -1;
}

// The reaper's `hsperfguard reap` on `tree`, traced: every flock on `file` is held 2 s after it
// returns, and `at_flock` runs as soon as strace prints it (before the reaper goes on). Returns
// the report.
nlohmann::json reap_pausing_after_flock(const ReapTree& tree, const std::string& file,
                                        const std::function<void()>& at_flock, int* flocks) {
  const std::string out = tree.scratch / "report.json";
  *flocks = 0;
  const int status = run_reading_stderr(
      {"env",
       test::traced_asan_options(),
       "strace",
       "-f",
       "-qq",
       "-P",
       file,
       "-e",
       "trace=flock",
       "-e",
       "inject=flock:delay_exit=2000000",
       test::tool_path(),
       "reap",
       "--tmpdir",
       tree.tmp,
       "--no-lock",
       "--no-containers",
       "--min-age",
       "0s",
       "--format",
       "json"},
      out,
      [&](const std::string& line) {
        if (line.find("flock(") == std::string::npos || line.find("LOCK_EX") == std::string::npos)
          return;
        if ((*flocks)++ == 0) at_flock();
      },
      std::chrono::seconds(60));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  const auto bytes = test::read_file(out);
  return nlohmann::json::parse(
      std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()), nullptr, false);
}

// The owner renames another file over the name while the reaper holds the judged inode locked:
// the name now leads to a file nobody judged. The reaper looks the name up again and leaves it
// (renamed-while-locked); unlinking by name would have removed the new file.
TEST(ReapRace, NameReplacedWhileTheReaperHoldsTheLockIsNotUnlinked) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (the namespace is another user's)";
  if (!test::have_program("strace"))
    GTEST_SKIP() << "needs strace to hold the reaper after its flock";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  const std::string fresh = tree.plain_file(ns, "fresh");
  struct stat want {};
  ASSERT_EQ(::lstat(fresh.c_str(), &want), 0);
  bool swapped = false;
  int flocks = 0;
  const auto report = reap_pausing_after_flock(
      tree, stale, [&] { swapped = ::rename(fresh.c_str(), stale.c_str()) == 0; }, &flocks);
  ASSERT_TRUE(swapped) << "the reaper never took the lock on " << stale;
  EXPECT_EQ(flocks, 1) << "one flock on the entry: the reaper's (no probe: /proc/locks is read)";

  struct stat now {};
  ASSERT_EQ(::lstat(stale.c_str(), &now), 0) << "the replacement was unlinked";
  EXPECT_EQ(now.st_ino, want.st_ino);
  ASSERT_FALSE(report.is_discarded());
  bool seen = false;
  for (const auto& a : report.at("actions")) {
    if (a.at("path") != stale) continue;
    seen = true;
    EXPECT_EQ(a.at("outcome"), "changed");
    EXPECT_EQ(a.at("detail"), "renamed-while-locked");
  }
  EXPECT_TRUE(seen) << report.dump();
}

// Control: held the same way and left alone, the same entry is removed. The pause itself
// changes nothing, so the test above fails for what the test did, not for the tracing.
TEST(ReapRace, EntryHeldAfterItsFlockAndLeftAloneIsRemoved) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (the namespace is another user's)";
  if (!test::have_program("strace"))
    GTEST_SKIP() << "needs strace to hold the reaper after its flock";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  int flocks = 0;
  const auto report = reap_pausing_after_flock(
      tree, stale, [] {}, &flocks);
  EXPECT_EQ(flocks, 1);
  EXPECT_FALSE(exists(stale));
  ASSERT_FALSE(report.is_discarded());
  ASSERT_EQ(report.at("actions").size(), 1u) << report.dump();
  EXPECT_EQ(report.at("actions")[0].at("outcome"), "removed");
}

// Executes `run`'s plan in a forked child with its own mount namespace, where `target` is
// bind-mounted onto itself (same device and inode, another mount) after the plan. The child
// writes "<outcome> <detail> exists=<0|1>" for `entry`, or "skip: ..." if it may not mount.
test::ChildResult execute_with_bind_mount(const ReapRun& run, const std::string& target,
                                          const std::string& entry) {
  return test::run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0)
      return "skip: needs root: unshare: " + std::string(std::strerror(errno));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      return "mount private failed";
    if (::mount(target.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0)
      return "bind failed";
    const auto result = platform::execute_plan(run.plan, {});
    const ReapActionRecord* r = record_of(run, result, entry);
    if (r == nullptr) return "not attempted";
    return std::string(to_string(r->outcome)) + " " + r->detail +
           " exists=" + (exists(entry) ? "1" : "0");
  });
}

// An entry with a mount on it (a file bind-mounted over itself: same device, same inode,
// another mount) is refused as crossing a mount before anything is locked or unlinked, and
// its name stays. In a private mount namespace: nothing reaches the host's mounts.
TEST(ReapRace, EntryWithAMountOnItIsRefusedAsCrossingAMount) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, stale), "remove");
  const test::ChildResult child = execute_with_bind_mount(run, stale, stale);
  ASSERT_TRUE(child.finished);
  if (child.out.starts_with("skip:")) GTEST_SKIP() << child.out;
  EXPECT_EQ(child.out, "changed crosses-mount exists=1");
  EXPECT_TRUE(exists(stale));
}

// The same for the namespace: bind-mounted on itself after the plan (same device and inode,
// another mount), every entry of it is refused as crossing a mount and stays.
TEST(ReapRace, NamespaceWithAMountOnItIsRefusedAsCrossingAMount) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, stale), "remove");
  const test::ChildResult child = execute_with_bind_mount(run, ns, stale);
  ASSERT_TRUE(child.finished);
  if (child.out.starts_with("skip:")) GTEST_SKIP() << child.out;
  EXPECT_EQ(child.out, "failed crosses-mount exists=1");
  EXPECT_TRUE(exists(stale));
}

// The judged file replaced after the plan by one the owner's identity may not open (root's,
// mode 0600): the open is refused (EACCES), and since the name now leads to another inode the
// entry is "identity-changed", not a failure of ours; the new file stays.
TEST(ReapRace, StaleFileReplacedByAFileTheOwnerCannotOpenIsChangedNotFailed) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to plant root's file in nobody's namespace";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  ReapRun run = plan_in(tree.tmp);
  ASSERT_EQ(action_of(run, stale), "remove");
  ASSERT_EQ(::unlink(stale.c_str()), 0);
  test::write_file(stale, test::to_bytes("root's\n"));
  ASSERT_EQ(::chmod(stale.c_str(), 0600), 0);  // owned by root: nobody cannot open it
  const auto result = platform::execute_plan(run.plan, {});
  const ReapActionRecord* r = record_of(run, result, stale);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, ReapOutcome::changed);
  EXPECT_EQ(r->detail, "identity-changed");
  struct stat st {};
  ASSERT_EQ(::lstat(stale.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
}

// The owner makes a stale file's name flicker between a symlink and nothing while the reaper
// acts on it: its O_NOFOLLOW open meets the link (ELOOP) and, an instant later, the look at
// the name finds nothing. That entry changed since it was judged (a link stood there); it is
// never a failure (exit 1, an alert). Rounds until one such interleaving was seen often
// enough to matter: each round's outcome is changed (the link was met) or vanished (nothing
// was), never failed.
TEST(ReapRace, SymlinkFlickeringAtAStaleFilesNameIsChangedNeverFailed) {
  constexpr int kRounds = 400;
  const auto budget = std::chrono::seconds(60);
  ReapTree tree;
  const bool root = test::is_root();
  const std::string ns = tree.make_namespace("nobody", root ? kNobody : ::geteuid(),
                                             root ? kNogroup : ::getegid());
  const std::string sentinel = tree.sentinel("flicker-target");
  const platform::UniqueFd ns_fd(::open(ns.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(ns_fd.valid());
  std::map<std::string, int> outcomes;
  const auto started = std::chrono::steady_clock::now();
  for (int round = 0; round < kRounds && std::chrono::steady_clock::now() - started < budget; ++round) {
    const std::string stale = tree.stale_file(ns);
    const std::string name = basename(stale);
    ReapRun run = plan_in(tree.tmp);
    ASSERT_EQ(action_of(run, stale), "remove");
    ASSERT_EQ(::unlink(stale.c_str()), 0);
    std::atomic<bool> running{true};
    std::atomic<int> flickers{0};
    std::thread flicker([&] {
      while (running) {
        (void)::symlinkat(sentinel.c_str(), ns_fd.get(), name.c_str());
        (void)::unlinkat(ns_fd.get(), name.c_str(), 0);
        ++flickers;
      }
    });
    while (flickers < 50) std::this_thread::yield();
    const auto result = platform::execute_plan(run.plan, {});
    running = false;
    flicker.join();
    (void)::unlinkat(ns_fd.get(), name.c_str(), 0);
    const ReapActionRecord* r = record_of(run, result, stale);
    ASSERT_NE(r, nullptr) << "round " << round;
    ++outcomes[std::string(to_string(r->outcome)) + "/" + r->detail];
    ASSERT_NE(r->outcome, ReapOutcome::failed)
        << "round " << round << ": " << r->detail << " " << (r->error ? r->error->message : "");
    ASSERT_TRUE(r->outcome == ReapOutcome::changed || r->outcome == ReapOutcome::vanished)
        << "round " << round << ": " << to_string(r->outcome);
  }
  EXPECT_TRUE(tree.sentinels_intact());
  std::string seen;
  for (const auto& [what, n] : outcomes) seen += what + " " + std::to_string(n) + "; ";
  RecordProperty("outcomes", seen);
  EXPECT_GT(outcomes["changed/identity-changed"], 0) << seen;
}

// ---- The order of the reaper's system calls, against the model ----------------------------
// verify/reap.pml model-checks the removal protocol step by step (scripts/verify.sh). This ties
// the model to the code: a real `reap` of one stale file runs under strace, and the system
// calls on the temp dir, the namespace and the entry must be the model's steps in the model's
// order. Reordering the code fails this test until the model (and this list) is changed too.
std::vector<std::string> reaper_steps_from_trace(const std::string& trace, const std::string& tmp,
                                                 const std::string& ns_name,
                                                 const std::string& entry) {
  std::vector<std::string> lines;
  {
    std::istringstream in(trace);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  auto fd_result = [](const std::string& l) {
    const auto eq = l.rfind("= ");
    return eq == std::string::npos ? std::string() : l.substr(eq + 2, l.find(' ', eq + 2) - eq - 2);
  };
  auto has = [](const std::string& l, const std::string& what) {
    return l.find(what) != std::string::npos;
  };
  // The execution's part: from the last time the path walk held the temp dir (its last
  // component, O_PATH) before the unlink; the temp dir is then opened through that descriptor.
  const std::string tmp_base = tmp.substr(tmp.rfind('/') + 1);
  auto holds_temp_dir = [&](const std::string& l) {
    return has(l, "openat(") && has(l, ", \"" + tmp_base + "\", ") && has(l, "O_PATH");
  };
  std::size_t unlink_at = lines.size(), from = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (has(lines[i], "unlinkat(") && has(lines[i], "\"" + entry + "\"")) unlink_at = i;
  }
  if (unlink_at == lines.size()) return {"no unlinkat of the entry in the trace"};
  for (std::size_t i = 0; i < unlink_at; ++i) {
    if (holds_temp_dir(lines[i])) from = i;
  }
  std::string h, t, n, e;
  std::vector<std::string> steps;
  for (std::size_t i = from; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (t.empty() && holds_temp_dir(l)) {
      h = fd_result(l);
      if (!has(l, "O_NOFOLLOW")) steps.push_back("HOLD TEMP DIR FOLLOWING");
    } else if (!h.empty() && t.empty() && has(l, "openat(" + h + ", \".\", ")) {
      t = fd_result(l);
      steps.push_back(has(l, "O_NOFOLLOW") && has(l, "O_DIRECTORY") ? "reopen temp dir"
                                                                    : "OPEN TEMP DIR FOLLOWING");
    } else if (!t.empty() && has(l, "openat(" + t + ", \"" + ns_name + "\"")) {
      n = fd_result(l);
      steps.push_back(has(l, "O_NOFOLLOW") && has(l, "O_DIRECTORY") ? "reopen namespace"
                                                                    : "OPEN NAMESPACE FOLLOWING");
    } else if (!t.empty() && has(l, "statx(" + t + ", \"\", ")) {
      steps.push_back("compare temp dir");
    } else if (!n.empty() && has(l, "statx(" + n + ", \"\", ")) {
      steps.push_back("compare namespace");
    } else if (has(l, "setfsuid(65534)") &&
               (steps.empty() || steps.back() != "take owner's fs identity")) {
      steps.push_back("take owner's fs identity");
    } else if (!n.empty() && has(l, "openat(" + n + ", \"" + entry + "\"")) {
      e = fd_result(l);
      steps.push_back(has(l, "O_NOFOLLOW") ? "open entry without following"
                                           : "OPEN ENTRY FOLLOWING");
    } else if (!e.empty() && has(l, "statx(" + e + ", \"\", ")) {
      const bool unlinked = std::find(steps.begin(), steps.end(), "unlink") != steps.end();
      steps.push_back(unlinked ? "check no name left" : "compare entry");
    } else if (!e.empty() && has(l, "flock(" + e + ", LOCK_EX|LOCK_NB)")) {
      steps.push_back("flock");
    } else if (!n.empty() && has(l, "statx(" + n + ", \"" + entry + "\"")) {
      steps.push_back(has(l, "AT_SYMLINK_NOFOLLOW") ? "look name up again" : "LOOK UP FOLLOWING");
    } else if (!n.empty() && has(l, "unlinkat(" + n + ", \"" + entry + "\", 0)")) {
      steps.push_back("unlink");
    } else if (!e.empty() && has(l, "close(" + e + ")")) {
      steps.push_back("close");
      break;
    }
  }
  return steps;
}

TEST(ReapRace, SystemCallsOnTheEntryComeInTheOrderOfTheModel) {
  if (!test::is_root()) GTEST_SKIP() << "needs root (the namespace is another user's)";
  if (!test::have_program("strace"))
    GTEST_SKIP() << "needs strace to see the reaper's system calls";
  ReapTree tree;
  const std::string ns = tree.make_namespace("nobody", kNobody, kNogroup);
  const std::string stale = tree.stale_file(ns);
  const std::string trace_file = tree.scratch / "trace";
  const auto traced =
      test::run({"env", test::traced_asan_options(), "strace", "-f", "-qq", "-o", trace_file, "-e",
                 "trace=%file,flock,setfsuid,close", test::tool_path(), "reap", "--tmpdir",
                 tree.tmp, "--no-lock", "--no-containers", "--min-age", "0s", "--format", "json"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  ASSERT_FALSE(exists(stale));
  const auto bytes = test::read_file(trace_file);
  const std::string trace(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  // verify/reap.pml, proctype Reaper, step for step.
  const std::vector<std::string> model = {"reopen temp dir",
                                          "compare temp dir",
                                          "reopen namespace",
                                          "compare namespace",
                                          "take owner's fs identity",
                                          "open entry without following",
                                          "compare entry",
                                          "flock",
                                          "look name up again",
                                          "unlink",
                                          "check no name left",
                                          "close"};
  EXPECT_EQ(reaper_steps_from_trace(trace, tree.tmp, "hsperfdata_nobody", basename(stale)), model)
      << trace;
}

}  // namespace
}  // namespace hsperfguard
