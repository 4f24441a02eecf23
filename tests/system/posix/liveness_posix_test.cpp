// Liveness evidence against real processes and real JVMs (Linux).
//
// Stale files are never left in a real /tmp/hsperfdata_<user>: the same user's next JVM
// would delete them, and they are not ours to leave. Tests copy a JVM's file into a private
// namespace directory under a ScratchDir and judge the copy.
#include "platform/posix/liveness_posix.hpp"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_posix.hpp"
#include "jvm_support.hpp"
#include "decide/liveness.hpp"
#include "model/perfdata.hpp"
#include "model/pid_name.hpp"
#include "platform/liveness.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/process.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

using platform::LivenessGatherer;
using platform::LivenessOptions;
using platform::LivenessScope;
using test::JvmProcess;
using test::ScratchDir;
using Existence = ProcessFacts::Existence;

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What observation would record for `dir`/`name`, built with plain stat and our parser.
FileFacts file_facts(const std::string& dir, const std::string& name) {
  FileFacts f;
  f.name = name;
  f.path = dir + "/" + name;
  f.pid_name = classify_pid_name(name);
  struct stat st {};
  if (::lstat(f.path.c_str(), &st) == 0) {
    f.lstat = platform::to_inode_facts(st);
    f.opened = f.lstat;
    if (S_ISREG(st.st_mode)) {
      const auto bytes = test::read_file(f.path);
      f.region = RegionSummary{perfdata::parse_region(bytes), bytes.size()};
    }
  }
  return f;
}

NamespaceFacts namespace_facts(const std::string& dir, const std::vector<std::string>& names) {
  NamespaceFacts ns;
  ns.path = dir;
  ns.name = dir.substr(dir.rfind('/') + 1);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) {
    ns.lstat = platform::to_inode_facts(st);
    ns.opened = ns.lstat;
  }
  for (const auto& n : names) ns.files.push_back(file_facts(dir, n));
  return ns;
}

// A private namespace directory, as a JVM would have made it.
std::string make_namespace(const ScratchDir& scratch, const std::string& user = "liveness") {
  const std::string dir = scratch / ("hsperfdata_" + user);
  ::mkdir(dir.c_str(), 0755);
  ::chmod(scratch.path().c_str(), 0755);
  return dir;
}

void copy_file(const std::string& from, const std::string& to) {
  test::write_file(to, test::read_file(from));
  ::chmod(to.c_str(), 0644);
}

// A child process (exec'ed, or a function run in a fork) killed and reaped on destruction.
class Child {
 public:
  Child() = default;
  ~Child() { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool exec(std::vector<std::string> argv) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    return pid_ > 0;
  }

  // Forks a child that becomes `uid`, makes itself non-dumpable (so that even processes of
  // the same uid without ptrace rights cannot read its maps) and waits to be killed.
  bool undumpable_as(uid_t uid, gid_t gid) {
    int ready[2];
    if (::pipe(ready) != 0) return false;
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      if (::setgroups(1, &gid) != 0 || ::setresgid(gid, gid, gid) != 0 ||
          ::setresuid(uid, uid, uid) != 0)
        ::_exit(1);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::prctl(PR_SET_DUMPABLE, 0);
      (void)!::write(ready[1], "r", 1);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char c = 0;
    const bool ok = pid_ > 0 && ::read(ready[0], &c, 1) == 1;
    ::close(ready[0]);
    return ok;
  }

  pid_t pid() const { return pid_; }

  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
};

// Runs `fn` in a forked child with the credentials of `uid` and returns what it wrote.
std::string run_as(uid_t uid, gid_t gid, const std::function<std::string()>& fn) {
  int out[2];
  if (::pipe(out) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(out[0]);
    if (::setgroups(1, &gid) != 0 || ::setresgid(gid, gid, gid) != 0 ||
        ::setresuid(uid, uid, uid) != 0) {
      (void)!::write(out[1], "setresuid failed", 16);
      ::_exit(1);
    }
    const std::string result = fn();
    (void)!::write(out[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(out[1]);
  std::string result;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
    result.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  ::waitpid(child, nullptr, 0);
  return result;
}

std::optional<std::int64_t> begin_time(const std::string& path) {
  const perfdata::Region r = perfdata::parse_region(test::read_file(path));
  const perfdata::Entry* e = r.find("sun.rt.createVmBeginTime");
  if (e == nullptr) return std::nullopt;
  return e->long_value;
}

#define REQUIRE_JDK()                                        \
  do {                                                       \
    if (!test::have_jdk()) GTEST_SKIP() << "no JDK on PATH"; \
  } while (0)

// ---- Live JVMs ------------------------------------------------------------------------------

// lock_state false: gather() leaves every lock unknown (nothing read, nothing probed);
// gather_locks() adds it afterwards, the candidates untouched.
// A process's command line as ps shows it: the NUL separators become spaces (the last one
// dropped), every other byte stays as it is, and at most `max` bytes are taken. Read from a
// directory laid out as /proc is.
TEST(ProcReaderCmdline, SeparatorsBecomeSpacesAndNothingElseChanges) {
  ScratchDir scratch;
  const std::string proc = scratch / "proc";
  ASSERT_EQ(::mkdir((proc).c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((proc + "/4242").c_str(), 0755), 0);
  const char raw[] = "/usr/bin/java\0-Xmx32m\0-cp\0/a b\0Main\0";
  const std::string text(raw, sizeof raw - 1);  // the kernel's: each argument ends with a NUL
  test::write_file(proc + "/4242/cmdline", test::to_bytes(text));
  ASSERT_EQ(::mkdir((proc + "/4243").c_str(), 0755), 0);
  test::write_file(proc + "/4243/cmdline", std::vector<std::byte>{});
  platform::ProcReader reader(proc);
  EXPECT_EQ(reader.read_cmdline(4242), "/usr/bin/java -Xmx32m -cp /a b Main");
  EXPECT_EQ(reader.read_cmdline(4242, 17), "/usr/bin/java -Xm");
  EXPECT_EQ(reader.read_cmdline(4243), std::nullopt);  // empty: a kernel thread, a zombie
  EXPECT_EQ(reader.read_cmdline(4244), std::nullopt);  // none
}

// A process killed and reaped while the reader waits on it: a child that waits for its death,
// and a directory laid out as /proc is (`proc`) with <pid>/stat a FIFO, made after `lay_out`
// has put the rest of <pid>/ there. `read` runs the reader; another thread waits until the
// reader opens stat, kills and reaps the child, then ends stat, empty. Whether the child died
// while it was read.
bool killed_while_read(const std::string& proc, const std::function<void(const std::string&, pid_t)>& lay_out,
                       const std::function<void(pid_t)>& read) {
  const pid_t victim = ::fork();
  if (victim < 0) return false;
  if (victim == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::string dir = proc + "/" + std::to_string(victim);
  const std::string fifo = dir + "/stat";
  if (::mkdir(proc.c_str(), 0755) != 0 || ::mkdir(dir.c_str(), 0755) != 0) {
    ::kill(victim, SIGKILL);
    ::waitpid(victim, nullptr, 0);
    return false;
  }
  lay_out(dir, victim);
  if (::mkfifo(fifo.c_str(), 0600) != 0) {
    ::kill(victim, SIGKILL);
    ::waitpid(victim, nullptr, 0);
    return false;
  }
  std::atomic<bool> killed{false};
  std::thread killer([&] {
    // Opens once the reader waits in its open of stat (ENXIO before), for 10 s at most.
    int w = -1;
    for (int i = 0; i < 1000 && w < 0; ++i) {
      w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (w < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(victim, SIGKILL);
    int status = 0;
    killed = ::waitpid(victim, &status, 0) == victim && w >= 0;
    if (w >= 0) ::close(w);  // the reader's stat ends, empty
  });
  read(victim);
  killer.join();
  return killed;
}

// A process that ends while it is read is gone, not a process whose reads failed: the reads
// that found nothing (ENOENT) are explained by a kill(pid, 0) that answers ESRCH.
TEST(ProcReaderGone, AProcessThatEndsWhileItIsReadIsGoneNotAnError) {
  ScratchDir scratch;
  platform::ProcReader reader(scratch / "proc");
  platform::ProcessRecord record;
  ASSERT_TRUE(killed_while_read(
      scratch / "proc", [](const std::string&, pid_t) {},
      [&](pid_t pid) { record = reader.read(pid); }))
      << "the reader never opened stat";
  EXPECT_EQ(record.facts.existence, ProcessFacts::Existence::gone);
  EXPECT_FALSE(record.facts.error.has_value()) << record.facts.error->message;
}

// The same, when only the maps find it gone: its stat, status and mount namespace were read
// while it lived (stat waits until the process is dead), and the maps, read after (here
// handed in, as the liveness pass does), say ESRCH. The process is gone, not alive with an
// error of its maps.
TEST(ProcReaderGone, AProcessOnlyItsMapsFindGoneIsGoneNotAnError) {
  ScratchDir scratch;
  const auto lay_out = [](const std::string& dir, pid_t pid) {
    EXPECT_EQ(::mkdir((dir + "/ns").c_str(), 0755), 0);
    EXPECT_EQ(::symlink("mnt:[4026531841]", (dir + "/ns/mnt").c_str()), 0);
    std::ofstream(dir + "/status") << "Name:\tjava\nUid:\t0\t0\t0\t0\nNSpid:\t" << pid << "\n";
  };
  platform::ProcReader reader(scratch / "proc");
  platform::ProcessRecord record;
  ASSERT_TRUE(killed_while_read(scratch / "proc", lay_out, [&](pid_t pid) {
    platform::MapsReading maps;
    maps.error = ESRCH;
    record = reader.read(pid, maps);
  })) << "the reader never opened stat";
  EXPECT_EQ(record.facts.existence, ProcessFacts::Existence::gone);
  EXPECT_FALSE(record.facts.error.has_value()) << record.facts.error->message;
}

// The pids of a /proc listing: every name of digits that is a positive pid, nothing else
// ("0" and "00" would make kill(0, 0) signal our own process group). From a directory laid out
// as /proc is.
TEST(ProcReaderPids, OnlyPositivePidsAreListed) {
  ScratchDir scratch;
  const std::string proc = scratch / "proc";
  ASSERT_EQ(::mkdir(proc.c_str(), 0755), 0);
  for (const char* name : {"0", "00", "1", "12", "0042", "self", "12a", "1234567890", "999999999"}) {
    ASSERT_EQ(::mkdir((proc + "/" + name).c_str(), 0755), 0) << name;
  }
  int err = -1;
  std::vector<std::int32_t> pids = platform::list_pids(proc, &err);
  EXPECT_EQ(err, 0);
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(pids, (std::vector<std::int32_t>{1, 12, 42, 999999999}));
}

// A reading of /proc answers for a file only when the file's last change was more than the
// margin before the reading began: file times come from a coarser clock than the reading's.
// At exactly the margin the file's process may still have been missed.
TEST(LivenessReading, AnswersOnlyForFilesChangedMoreThanTheMarginBeforeIt) {
  const std::int64_t began = 1'700'000'000'000;
  EXPECT_FALSE(platform::reading_may_miss(began - platform::kReadingMarginMs - 1, began));
  EXPECT_TRUE(platform::reading_may_miss(began - platform::kReadingMarginMs, began));
  EXPECT_TRUE(platform::reading_may_miss(began - platform::kReadingMarginMs + 1, began));
  EXPECT_TRUE(platform::reading_may_miss(began, began));
  EXPECT_TRUE(platform::reading_may_miss(began + 60'000, began));
  EXPECT_FALSE(platform::reading_may_miss(began - 3'600'000, began));
  // A tick of the coarse clock is 1 to 10 ms (HZ 1000 to 100): the margin covers several.
  EXPECT_GE(platform::kReadingMarginMs, 20);
}

// A pass over /proc is repeated for changed files only once its whole interval is over.
TEST(LivenessReading, APassIsRepeatedOnlyOnceItsWholeIntervalIsOver) {
  const std::int64_t began = 1'700'000'000'000;
  EXPECT_FALSE(platform::pass_interval_over(began, began));
  EXPECT_FALSE(platform::pass_interval_over(began, began + platform::kPassIntervalMs - 1));
  EXPECT_TRUE(platform::pass_interval_over(began, began + platform::kPassIntervalMs));
  EXPECT_TRUE(platform::pass_interval_over(began, began + 60'000));
  EXPECT_FALSE(platform::pass_interval_over(began, began - 5));  // the clock went back
  EXPECT_GE(platform::kPassIntervalMs, 100);
}

TEST(LivenessPosix, LockStateIsAddedOnlyWhenAskedFor) {
  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  test::write_file(dir + "/100", std::vector<std::byte>(4096));
  test::write_file(dir + "/200", std::vector<std::byte>(4096));
  platform::UniqueFd held(::open((dir + "/100").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(held.get(), LOCK_EX | LOCK_NB), 0);

  TempRootFacts root;
  root.namespaces.push_back(namespace_facts(dir, {"100", "200"}));
  LivenessGatherer gatherer(LivenessOptions{.lock_state = false});
  gatherer.gather(root);
  for (const FileFacts& f : root.namespaces[0].files) {
    ASSERT_TRUE(f.liveness.has_value()) << f.name;
    EXPECT_EQ(f.liveness->lock_source, "none") << f.name;
    EXPECT_FALSE(f.liveness->lock_held.has_value()) << f.name;
    EXPECT_EQ(f.liveness->candidates.size(), 1u) << f.name;  // the pid it names
  }
  EXPECT_EQ(decide_liveness(root.namespaces[0].files[1], LivenessSettings{}).verdict,
            Verdict::unknown)
      << "never stale while the lock is unknown";

  gatherer.gather_locks(root);
  const LivenessFacts& locked = *root.namespaces[0].files[0].liveness;
  const LivenessFacts& free = *root.namespaces[0].files[1].liveness;
  EXPECT_EQ(locked.lock_source, "proc-locks");
  EXPECT_EQ(locked.lock_held, true);
  EXPECT_EQ(locked.lock_holder_pid, ::getpid());
  EXPECT_EQ(free.lock_held, false);
  EXPECT_EQ(free.candidates.size(), 1u);
  EXPECT_EQ(decide_liveness(root.namespaces[0].files[0], LivenessSettings{}).verdict,
            Verdict::live);
}

// A namespace index from placed processes (ps's one pass): those in the namespace by their
// innermost pid; an unplaceable one (its ns link unreadable) leaves its NSpid uncertain; one
// without an NSpid, or an incomplete listing, leaves the whole index incomplete.
TEST(LivenessIndex, PlacementsIndexOneNamespaceAndSayWhatIsUncertain) {
  const std::string x = "mnt:[4026532001]";
  const std::string y = "mnt:[4026532002]";
  std::vector<ProcessPlacement> placed(4);
  placed[0] = ProcessPlacement{100, x, 1, 0, 0};
  placed[1] = ProcessPlacement{200, y, 1, 0, 0};
  placed[2] = ProcessPlacement{300, std::nullopt, 7, EACCES, 0};
  placed[3] = ProcessPlacement{400, x, std::nullopt, 0, EACCES};

  const platform::NamespaceIndex in_x = platform::index_mount_namespace(placed, x, true);
  EXPECT_EQ(in_x.host_pids_by_nspid.size(), 1u);
  EXPECT_EQ(in_x.host_pids_by_nspid.at(1), std::vector<std::int32_t>{100});
  EXPECT_TRUE(in_x.uncertain_nspids.contains(7));
  EXPECT_FALSE(in_x.complete) << "pid 400 is in it and has no NSpid";
  ASSERT_EQ(in_x.errors.size(), 2u);
  EXPECT_EQ(in_x.errors[0].path, "/proc/300/ns/mnt");
  EXPECT_EQ(in_x.errors[1].path, "/proc/400/status");

  const platform::NamespaceIndex in_y = platform::index_mount_namespace(placed, y, true);
  EXPECT_EQ(in_y.host_pids_by_nspid.at(1), std::vector<std::int32_t>{200});
  EXPECT_TRUE(in_y.complete);
  EXPECT_TRUE(in_y.complete_for(1));
  EXPECT_FALSE(in_y.complete_for(7)) << "pid 300 may be in it";
  EXPECT_FALSE(platform::index_mount_namespace(placed, y, false).complete)
      << "not every process was listed";
}

// A process with no NSpid whose status was read (a kernel before 4.1) makes the index
// incomplete without an error (nothing failed); failed reads are errors, the first 8 of them.
TEST(LivenessIndex, NoNspidIsAnErrorOnlyWhereAReadFailedAndErrorsAreCapped) {
  const std::string x = "mnt:[4026532001]";
  std::vector<ProcessPlacement> placed;
  placed.push_back(ProcessPlacement{500, x, std::nullopt, 0, 0});  // status read, no NSpid line
  platform::NamespaceIndex in_x = platform::index_mount_namespace(placed, x, true);
  EXPECT_FALSE(in_x.complete);
  EXPECT_TRUE(in_x.errors.empty()) << in_x.errors.front().path;
  for (std::int32_t pid = 600; pid < 620; ++pid) {
    placed.push_back(ProcessPlacement{pid, x, std::nullopt, 0, EACCES});
  }
  in_x = platform::index_mount_namespace(placed, x, true);
  ASSERT_EQ(in_x.errors.size(), 8u);
  EXPECT_EQ(in_x.errors.front().path, "/proc/600/status");
  EXPECT_EQ(in_x.errors.back().path, "/proc/607/status");

  // Processes that cannot be placed (their ns/mnt link refused): each an error, as many as the
  // same cap allows, and their NSpids uncertain.
  std::vector<ProcessPlacement> unplaced;
  for (std::int32_t pid = 700; pid < 720; ++pid) {
    unplaced.push_back(ProcessPlacement{pid, std::nullopt, pid - 699, EACCES, 0});
  }
  const platform::NamespaceIndex blind = platform::index_mount_namespace(unplaced, x, true);
  ASSERT_EQ(blind.errors.size(), 8u);
  EXPECT_EQ(blind.errors.front().path, "/proc/700/ns/mnt");
  EXPECT_EQ(blind.errors.back().path, "/proc/707/ns/mnt");
  EXPECT_EQ(blind.uncertain_nspids.size(), 20u);
}

TEST(LivenessPosix, LiveJvmIsLiveByProcLocksAndByMaps) {
  REQUIRE_JDK();
  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-Xmx64m", "-XX:+UseSerialGC"}));
  const std::string path = jvm.backing_file_path();
  const std::string dir = path.substr(0, path.rfind('/'));
  NamespaceFacts ns = namespace_facts(dir, {std::to_string(jvm.pid())});

  LivenessGatherer gatherer;
  gatherer.gather(ns, LivenessScope{});
  const FileFacts& file = ns.files.at(0);
  ASSERT_TRUE(file.liveness.has_value());
  const LivenessFacts& lf = *file.liveness;
  EXPECT_EQ(lf.lock_source, "proc-locks");
  EXPECT_EQ(lf.lock_held, true);
  EXPECT_EQ(lf.lock_holder_pid, jvm.pid());
  EXPECT_EQ(lf.lock_kind, "FLOCK WRITE");
  EXPECT_FALSE(lf.lock_inode_only);
  ASSERT_EQ(lf.candidates.size(), 1u);
  const ProcessFacts& p = lf.candidates[0];
  EXPECT_EQ(p.pid, jvm.pid());
  EXPECT_EQ(p.existence, Existence::alive);
  EXPECT_EQ(p.maps_backing_file, true);
  EXPECT_FALSE(p.maps_inode_only) << "ext4 and tmpfs print stat's device in maps";
  EXPECT_EQ(p.maps_libjvm, true);
  EXPECT_EQ(p.real_uid, ::getuid());
  ASSERT_TRUE(p.start_time_ms.has_value());
  const auto begin = begin_time(path);
  ASSERT_TRUE(begin.has_value());
  EXPECT_LE(*p.start_time_ms, *begin) << "the process starts before the VM in it begins";
  EXPECT_GT(*p.start_time_ms, *begin - 60'000);

  LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::live);
  EXPECT_EQ(v.reason, "lock-held");
  EXPECT_EQ(v.evidence.at("lock").at("holder_pid"), jvm.pid());

  // Without the lock (an older JVM), the mapping alone keeps it live.
  FileFacts unlocked = file;
  unlocked.liveness->lock_held = false;
  v = decide_liveness(unlocked, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::live);
  EXPECT_EQ(v.reason, "mapped");
}

// A frozen JVM (SIGSTOP) still holds its lock and its mapping: stopped is not dead.
TEST(LivenessPosix, StoppedJvmIsStillLive) {
  REQUIRE_JDK();
  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-Xmx64m", "-XX:+UseSerialGC"}));
  ASSERT_TRUE(jvm.stop());
  const std::string path = jvm.backing_file_path();
  NamespaceFacts ns = namespace_facts(path.substr(0, path.rfind('/')), {std::to_string(jvm.pid())});
  LivenessGatherer gatherer;
  gatherer.gather(ns, LivenessScope{});
  EXPECT_EQ(decide_liveness(ns.files.at(0), LivenessSettings{}).verdict, Verdict::live);
  ASSERT_TRUE(jvm.cont());
}

// ---- Dead JVMs and reused pids ---------------------------------------------------------------

TEST(LivenessPosix, KilledJvmCopyIsStale) {
  REQUIRE_JDK();
  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-Xmx64m", "-XX:+UseSerialGC"}));
  const std::string name = std::to_string(jvm.pid());
  copy_file(jvm.backing_file_path(), dir + "/" + name);

  {  // While the JVM runs, the copy (another inode) is neither locked nor mapped by it.
    NamespaceFacts ns = namespace_facts(dir, {name});
    LivenessGatherer gatherer;
    gatherer.gather(ns, LivenessScope{});
    const LivenessVerdict v = decide_liveness(ns.files.at(0), LivenessSettings{});
    EXPECT_EQ(v.verdict, Verdict::pid_reused) << v.message;
    EXPECT_EQ(v.reason, "maps-without-file");
  }
  ASSERT_TRUE(jvm.kill9());
  NamespaceFacts ns = namespace_facts(dir, {name});
  LivenessGatherer gatherer;
  gatherer.gather(ns, LivenessScope{});
  const FileFacts& file = ns.files.at(0);
  EXPECT_EQ(file.liveness->lock_held, false);
  ASSERT_EQ(file.liveness->candidates.size(), 1u);
  EXPECT_EQ(file.liveness->candidates[0].existence, Existence::gone);
  const LivenessVerdict v = decide_liveness(file, LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::stale) << v.message;
  EXPECT_EQ(v.reason, "process-gone");
  EXPECT_EQ(v.evidence.at("decided_by"), "process");
}

TEST(LivenessPosix, PidReuseBySleepIsDetected) {
  REQUIRE_JDK();
  if (test::find_program("sleep").empty()) GTEST_SKIP() << "no sleep";
  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  const std::string saved = scratch / "saved-region";
  {
    JvmProcess jvm;
    ASSERT_TRUE(jvm.start({"-Xmx64m", "-XX:+UseSerialGC"}));
    copy_file(jvm.backing_file_path(), saved);
    ASSERT_TRUE(jvm.kill9());
  }
  const auto begin = begin_time(saved);
  ASSERT_TRUE(begin.has_value());
  // /proc's start time may read up to a second early (btime is whole seconds): start the
  // impostor clearly later than begin + tolerance.
  const LivenessSettings settings;
  const std::int64_t wait_until = *begin + settings.start_time_tolerance_ms + 1500;
  while (now_ms() < wait_until) std::this_thread::sleep_for(std::chrono::milliseconds(50));

  Child sleeper;
  ASSERT_TRUE(sleeper.exec({"sleep", "60"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // exec'ed, maps settled
  const std::string name = std::to_string(sleeper.pid());
  copy_file(saved, dir + "/" + name);  // the dead JVM's file, as if its pid had been reused

  NamespaceFacts ns = namespace_facts(dir, {name});
  LivenessGatherer gatherer;
  gatherer.gather(ns, LivenessScope{});
  const FileFacts& file = ns.files.at(0);
  ASSERT_EQ(file.liveness->candidates.size(), 1u);
  const ProcessFacts& p = file.liveness->candidates[0];
  EXPECT_EQ(p.existence, Existence::alive);
  EXPECT_EQ(p.maps_backing_file, false);
  EXPECT_EQ(p.maps_libjvm, false);
  ASSERT_TRUE(p.start_time_ms.has_value());
  EXPECT_GT(*p.start_time_ms, *begin + settings.start_time_tolerance_ms);
  const LivenessVerdict v = decide_liveness(file, settings);
  EXPECT_EQ(v.verdict, Verdict::pid_reused) << v.message;
  EXPECT_EQ(v.reason, "started-after-vm-begin");
  EXPECT_EQ(v.evidence.at("decided_by"), "start-time");
  EXPECT_EQ(v.evidence.at("candidates").at(0).at("maps_backing_file"), false);
}

// ---- What we may not see --------------------------------------------------------------------

// The gatherer runs as nobody. Its targets: a nobody process that made itself non-dumpable
// (kill works, maps are EACCES), and this root test process (kill gives EPERM).
TEST(LivenessPosix, UnreadableProcessIsUnknownNeverStale) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to switch uids";
  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  Child target;
  ASSERT_TRUE(target.undumpable_as(kNobody, kNogroup));
  const std::string hidden = std::to_string(target.pid());
  const std::string other_user = std::to_string(::getpid());
  // Zero-filled regions: no createVmBeginTime, so only maps could tell.
  test::write_file(dir + "/" + hidden, std::vector<std::byte>(32768));
  test::write_file(dir + "/" + other_user, std::vector<std::byte>(32768));
  NamespaceFacts ns = namespace_facts(dir, {hidden, other_user});

  const std::string result = run_as(kNobody, kNogroup, [&] {
    LivenessGatherer gatherer;
    gatherer.gather(ns, LivenessScope{});
    std::ostringstream out;
    for (const auto& f : ns.files) {
      const LivenessVerdict v = decide_liveness(f, LivenessSettings{});
      const ProcessFacts& p = f.liveness->candidates.at(0);
      out << f.name << " " << to_string(v.verdict) << " " << v.reason
          << " existence=" << static_cast<int>(p.existence)
          << " maps=" << (p.maps_backing_file ? "read" : "unreadable")
          << " error=" << (p.error ? p.error->op + ":" + std::to_string(p.error->code) : "none")
          << "\n";
    }
    return out.str();
  });
  EXPECT_NE(
      result.find(hidden + " unknown no-vm-begin-time existence=0 maps=unreadable error=read:" +
                  std::to_string(EACCES)),
      std::string::npos)
      << result;
  EXPECT_NE(result.find(other_user + " unknown process-no-permission existence=2"),
            std::string::npos)
      << result;
}

// ---- The probe: the fallback when /proc/locks is unreadable ---------------------------------

TEST(LivenessPosix, ProbeAgreesWithProcLocksForLiveJvm) {
  REQUIRE_JDK();
  JvmProcess jvm;
  ASSERT_TRUE(jvm.start({"-Xmx64m", "-XX:+UseSerialGC"}));
  const std::string path = jvm.backing_file_path();
  const std::string dir = path.substr(0, path.rfind('/'));
  const std::string name = std::to_string(jvm.pid());

  NamespaceFacts by_table = namespace_facts(dir, {name});
  LivenessGatherer table_gatherer;
  table_gatherer.gather(by_table, LivenessScope{});
  NamespaceFacts by_probe = namespace_facts(dir, {name});
  LivenessGatherer probe_gatherer(LivenessOptions{.use_lock_table = false});
  probe_gatherer.gather(by_probe, LivenessScope{});

  EXPECT_EQ(by_table.files[0].liveness->lock_source, "proc-locks");
  EXPECT_EQ(by_probe.files[0].liveness->lock_source, "probe");
  EXPECT_EQ(by_table.files[0].liveness->lock_held, true);
  EXPECT_EQ(by_probe.files[0].liveness->lock_held, true);
  EXPECT_FALSE(by_probe.files[0].liveness->lock_holder_pid.has_value())
      << "a probe cannot name the holder";
  EXPECT_EQ(decide_liveness(by_probe.files[0], LivenessSettings{}).verdict, Verdict::live);

  platform::UniqueFd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const InodeFacts& id = *by_probe.files[0].lstat;
  ObservationError err;
  EXPECT_EQ(platform::probe_lock_at(dirfd.get(), name.c_str(), id.dev, id.ino, &err), true);
}

TEST(LivenessPosix, ProbeNeverBlocksAndNeverKeepsALock) {
  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  platform::UniqueFd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dirfd.valid());
  test::write_file(dir + "/100", std::vector<std::byte>(4096));
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/100").c_str(), &st), 0);
  const auto dev = static_cast<std::uint64_t>(st.st_dev);
  const auto ino = static_cast<std::uint64_t>(st.st_ino);
  ObservationError err;

  // Free: the probe locks and unlocks; afterwards nobody holds it and we can take it.
  EXPECT_EQ(platform::probe_lock_at(dirfd.get(), "100", dev, ino, &err), false);
  ObservationError table_err;
  const auto table = platform::LockTable::read("/proc/locks", &table_err);
  ASSERT_TRUE(table.has_value()) << table_err.message;
  EXPECT_EQ(table->find(dev, ino).holder, nullptr);
  platform::UniqueFd mine(::open((dir + "/100").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(mine.get(), LOCK_EX | LOCK_NB), 0) << "the probe kept its lock";

  // Held by us (another open file description): the probe says held, without waiting.
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(platform::probe_lock_at(dirfd.get(), "100", dev, ino, &err), true);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  ::flock(mine.get(), LOCK_UN);

  // A FIFO with no writer would block a plain open; a symlink must not be followed.
  ASSERT_EQ(::mkfifo((dir + "/200").c_str(), 0600), 0);
  ASSERT_EQ(::stat((dir + "/200").c_str(), &st), 0);
  EXPECT_FALSE(platform::probe_lock_at(dirfd.get(), "200", static_cast<std::uint64_t>(st.st_dev),
                                       static_cast<std::uint64_t>(st.st_ino), &err)
                   .has_value());
  ASSERT_EQ(::symlink("100", (dir + "/300").c_str()), 0);
  EXPECT_FALSE(platform::probe_lock_at(dirfd.get(), "300", dev, ino, &err).has_value());
  EXPECT_EQ(err.code, ELOOP);
  // Swapped for another file since it was observed: no verdict about the new one.
  test::write_file(dir + "/400", std::vector<std::byte>(4096));
  EXPECT_FALSE(platform::probe_lock_at(dirfd.get(), "400", dev, ino, &err).has_value());

  // The gatherer never probes what is not a regular file.
  NamespaceFacts ns = namespace_facts(dir, {"100", "200", "300"});
  LivenessGatherer probe_gatherer(LivenessOptions{.use_lock_table = false});
  probe_gatherer.gather(ns, LivenessScope{});
  EXPECT_EQ(ns.files[0].liveness->lock_source, "probe");
  EXPECT_EQ(ns.files[0].liveness->lock_held, false);
  EXPECT_EQ(ns.files[1].liveness->lock_source, "none");
  EXPECT_FALSE(ns.files[1].liveness->lock_held.has_value());
  EXPECT_EQ(ns.files[2].liveness->lock_source, "none");
}

// A lock held through a hard link under a name no JVM writes: the inode is in use.
TEST(LivenessPosix, HardLinkToLockedFileIsLiveUnderAnyName) {
  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  test::write_file(dir + "/123", std::vector<std::byte>(4096));
  ASSERT_EQ(::link((dir + "/123").c_str(), (dir + "/copy.bak").c_str()), 0);
  platform::UniqueFd held(::open((dir + "/123").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(held.get(), LOCK_EX | LOCK_NB), 0);
  NamespaceFacts ns = namespace_facts(dir, {"copy.bak"});
  LivenessGatherer gatherer;
  gatherer.gather(ns, LivenessScope{});
  EXPECT_EQ(ns.files[0].liveness->lock_holder_pid, ::getpid());
  const LivenessVerdict v = decide_liveness(ns.files[0], LivenessSettings{});
  EXPECT_EQ(v.verdict, Verdict::live);
  EXPECT_EQ(v.reason, "lock-held");
  ::flock(held.get(), LOCK_UN);
  NamespaceFacts after = namespace_facts(dir, {"copy.bak"});
  LivenessGatherer again;
  again.gather(after, LivenessScope{});
  EXPECT_EQ(decide_liveness(after.files[0], LivenessSettings{}).verdict, Verdict::foreign);
}

// ---- Processes ------------------------------------------------------------------------------

TEST(LivenessPosix, ObserveProcessDescribesThisProcess) {
  const ProcessFacts self = platform::observe_process(::getpid());
  EXPECT_EQ(self.existence, Existence::alive);
  EXPECT_EQ(self.real_uid, ::getuid());
  ASSERT_FALSE(self.ns_pids.empty());
  EXPECT_EQ(self.ns_pids.front(), ::getpid());
  ASSERT_TRUE(self.mount_namespace.has_value());
  EXPECT_TRUE(self.mount_namespace->starts_with("mnt:[")) << *self.mount_namespace;
  ASSERT_TRUE(self.start_time_ms.has_value());
  EXPECT_LE(*self.start_time_ms, now_ms());
  EXPECT_GT(*self.start_time_ms, now_ms() - 24LL * 3600 * 1000 * 365);
  EXPECT_EQ(self.maps_libjvm, false);
  EXPECT_FALSE(self.maps_backing_file.has_value()) << "a per-file question";
  EXPECT_FALSE(self.error.has_value());
}

TEST(LivenessPosix, ObserveProcessOfReapedChildAndNonPidsIsGone) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(platform::observe_process(child).existence, Existence::gone);
  EXPECT_EQ(platform::observe_process(0).existence, Existence::gone);   // kill(0) = our group
  EXPECT_EQ(platform::observe_process(-1).existence, Existence::gone);  // kill(-1) = everyone
}

// A zombie still owns its pid but has no address space: "maps nothing" must not count as
// proof that it is another process.
TEST(LivenessPosix, ZombieMapsAreUnknownNotEmpty) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  for (int i = 0; i < 100; ++i) {  // until it has exited (and is a zombie)
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto f = procfs::parse_stat(text);
    if (f && f->state == 'Z') break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const ProcessFacts zombie = platform::observe_process(child);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(zombie.existence, Existence::alive);
  EXPECT_FALSE(zombie.maps_libjvm.has_value());
  ASSERT_TRUE(zombie.error.has_value());
  EXPECT_EQ(zombie.error->message, "no address space");
}

// ---- Reading maps: a chunk at a time, up to a cap ------------------------------------------

// Maps-like text of `lines` lines (about 100 bytes each), each line its own file.
std::string maps_text(int lines) {
  std::string text;
  for (int i = 0; i < lines; ++i) {
    text += "7f0000000000-7f0000001000 r--p 00000000 fe:01 " + std::to_string(1000 + i) +
            "                    /usr/lib/x86_64-linux-gnu/libsome" + std::to_string(i) + ".so\n";
  }
  return text;
}

// The reader reads in chunks of 64 KiB and parses each as it comes: 3,000 lines cross
// several chunks. At a cap equal to the file's size it is the whole file (one byte more is
// asked for to tell); one byte less, it is cut: the line in two is dropped and the summary
// proves nothing unmapped.
TEST(ProcfsRead, MapsAreReadUpToTheCapAndACapExactlyHitIsTheWholeFile) {
  const ScratchDir dir;
  const std::string text = maps_text(3000);
  ASSERT_GT(text.size(), 3 * 64 * 1024u);
  std::ofstream(dir / "maps", std::ios::binary) << text;
  std::vector<char> buffer;
  const procfs::MapsSummary whole = procfs::parse_maps(text);

  const platform::MapsReading exact = platform::read_maps(AT_FDCWD, (dir / "maps").c_str(), buffer, nullptr, text.size());
  EXPECT_EQ(exact.error, 0);
  EXPECT_FALSE(exact.summary.truncated);
  EXPECT_EQ(exact.summary.files, whole.files);
  EXPECT_EQ(exact.summary.lines, 3000u);

  const platform::MapsReading cut = platform::read_maps(AT_FDCWD, (dir / "maps").c_str(), buffer, nullptr, text.size() - 1);
  EXPECT_TRUE(cut.summary.truncated);
  EXPECT_FALSE(cut.summary.files_complete());
  EXPECT_EQ(cut.summary.lines, 2999u) << "the line cut at the cap is not parsed";
  EXPECT_EQ(cut.summary.files.size(), 2999u);
  EXPECT_EQ(cut.stopped, nullptr);
  EXPECT_NE(platform::partial_maps_error("maps", cut).message.find("MiB"), std::string::npos);

  const platform::MapsReading small = platform::read_maps(AT_FDCWD, (dir / "maps").c_str(), buffer, nullptr, 1000);
  EXPECT_TRUE(small.summary.truncated);
  EXPECT_EQ(small.summary.lines,
            static_cast<std::size_t>(std::count(text.begin(), text.begin() + 1000, '\n')));
}

// A stop signal or the deadline ends a reading before its next chunk: the reading says so
// and is partial.
TEST(ProcfsRead, MapsReadingStopsOnceTheRunLimitsAreReached) {
  const ScratchDir dir;
  std::ofstream(dir / "maps", std::ios::binary) << maps_text(10);
  std::vector<char> buffer;
  const std::atomic<bool> stop{true};
  RunLimits interrupted;
  interrupted.stop = &stop;
  const platform::MapsReading a = platform::read_maps(AT_FDCWD, (dir / "maps").c_str(), buffer, &interrupted);
  EXPECT_STREQ(a.stopped, "interrupted");
  EXPECT_TRUE(a.summary.truncated);
  EXPECT_EQ(a.summary.lines, 0u);
  RunLimits past;
  past.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const platform::MapsReading b = platform::read_maps(AT_FDCWD, (dir / "maps").c_str(), buffer, &past);
  EXPECT_STREQ(b.stopped, "deadline");
  EXPECT_NE(platform::partial_maps_error("maps", b).message.find("stopped (deadline)"), std::string::npos);
  const RunLimits none;
  const platform::MapsReading c = platform::read_maps(AT_FDCWD, (dir / "maps").c_str(), buffer, &none);
  EXPECT_EQ(c.stopped, nullptr);
  EXPECT_EQ(c.summary.lines, 10u);
}

// ---- Attach listeners: /proc/<pid>/net/unix and /proc/<pid>/fd ------------------------------

// An attach socket file of this process's pid, observed as observation does (lstat).
AttachFacts attach_socket_of_this_process(const std::string& path) {
  AttachFacts a;
  a.name = path.substr(path.rfind('/') + 1);
  a.path = path;
  a.kind = AttachFacts::Kind::listener_socket;
  a.pid = static_cast<std::int32_t>(::getpid());
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  InodeFacts inode;
  inode.kind = FileKind::socket;
  inode.dev = st.st_dev;
  inode.ino = st.st_ino;
  inode.ctime = Timestamp{st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
  a.lstat = inode;
  return a;
}

// A socket file this process listens on (bound as `.tmp`, listening, renamed, as HotSpot does)
// is its listener: the socket's own inode, which /proc/self/fd names, and the path it was bound
// to. Once it is closed, nothing of this process listens there: false, read, not guessed.
TEST(AttachListenerPosix, ThisProcessListeningOnItsSocketAndThenNot) {
  const ScratchDir dir;
  const std::string path = dir / (".java_pid" + std::to_string(::getpid()));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string bound = path + ".tmp";
  ASSERT_LT(bound.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, bound.c_str(), bound.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::rename(bound.c_str(), path.c_str()), 0);
  std::string link;
  ASSERT_EQ(platform::readlink_at(AT_FDCWD, ("/proc/self/fd/" + std::to_string(fd)).c_str(), link), 0);

  AttachFacts listening = attach_socket_of_this_process(path);
  LivenessGatherer(LivenessOptions{}).gather(listening, LivenessScope{});
  ASSERT_TRUE(listening.liveness);
  ASSERT_EQ(listening.liveness->listeners.size(), 1u);
  const AttachListenerFacts& l = listening.liveness->listeners[0];
  EXPECT_EQ(l.pid, ::getpid());
  EXPECT_EQ(l.listens, true);
  ASSERT_TRUE(l.socket_inode);
  EXPECT_EQ(link, "socket:[" + std::to_string(*l.socket_inode) + "]");
  EXPECT_NE(*l.socket_inode, listening.lstat->ino) << "the socket's inode, not the file's";
  EXPECT_EQ(l.bound_path, bound);
  EXPECT_FALSE(listening.liveness->proves_no_listener());

  ::close(fd);
  AttachFacts closed = attach_socket_of_this_process(path);
  LivenessGatherer(LivenessOptions{}).gather(closed, LivenessScope{});
  ASSERT_EQ(closed.liveness->listeners.size(), 1u);
  EXPECT_EQ(closed.liveness->listeners[0].listens, false);
  EXPECT_TRUE(closed.liveness->listeners[0].errors.empty());
  EXPECT_TRUE(closed.liveness->proves_no_listener());

  // A trigger file, and a listener name that is not a socket, are not asked about.
  AttachFacts not_socket = attach_socket_of_this_process(path);
  not_socket.lstat->kind = FileKind::regular;
  LivenessGatherer(LivenessOptions{}).gather(not_socket, LivenessScope{});
  EXPECT_TRUE(not_socket.liveness->listeners.empty());
}

// A listener of another process in the same network namespace, bound to this process's attach
// name, is not this process's: only a socket it holds counts.
TEST(AttachListenerPosix, AListenerOfAnotherProcessIsNotThisOnes) {
  const ScratchDir dir;
  const std::string path = dir / (".java_pid" + std::to_string(::getpid()));
  const std::string script =
      "import socket, sys, time\n"
      "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)\n"
      "print('ready', flush=True); time.sleep(60)\n";
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(out[1], 1);
    ::execlp("python3", "python3", "-c", script.c_str(), path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  char ready[8] = {};
  EXPECT_GT(::read(out[0], ready, sizeof ready), 0);
  ::close(out[0]);
  AttachFacts a = attach_socket_of_this_process(path);
  LivenessGatherer(LivenessOptions{}).gather(a, LivenessScope{});
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(a.liveness->listeners.size(), 1u);
  EXPECT_EQ(a.liveness->listeners[0].listens, false);
  EXPECT_TRUE(a.liveness->proves_no_listener());
}

// The reader streams net/unix (no cap: a line is a socket someone holds) and stops once the run
// limits are reached; held_socket says which listed inode a process holds, and why not.
TEST(AttachListenerPosix, NetUnixIsStreamedAndStopsAtTheRunLimits) {
  const ScratchDir dir;
  {
    std::ofstream text(dir / "unix", std::ios::binary);
    text << "Num       RefCount Protocol Flags    Type St Inode Path\n";
    for (int i = 0; i < 200000; ++i) text << "0000000000000000: 00000002 00000000 00010000 0001 01 7 /run/a.sock\n";
    text << "0000000000000000: 00000002 00000000 00010000 0001 01 9 /tmp/.java_pid77.tmp\n";
  }
  std::vector<char> buffer;
  const platform::UnixListenersReading whole = platform::read_unix_listeners(AT_FDCWD, (dir / "unix").c_str(), buffer);
  EXPECT_EQ(whole.error, 0);
  EXPECT_EQ(whole.listeners.lines, 200002u);
  ASSERT_EQ(whole.listeners.listeners.size(), 1u);
  EXPECT_EQ(whole.listeners.listeners[0].pid, 77);
  EXPECT_TRUE(whole.listeners.complete());
  EXPECT_LE(buffer.size(), 64u * 1024u);

  const std::atomic<bool> stop{true};
  RunLimits interrupted;
  interrupted.stop = &stop;
  const platform::UnixListenersReading cut =
      platform::read_unix_listeners(AT_FDCWD, (dir / "unix").c_str(), buffer, &interrupted);
  EXPECT_STREQ(cut.stopped, "interrupted");
  EXPECT_FALSE(cut.listeners.complete());

  const platform::UnixListenersReading missing =
      platform::read_unix_listeners(AT_FDCWD, (dir / "none").c_str(), buffer);
  EXPECT_EQ(missing.error, ENOENT);

  int err = 0;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  std::string link;
  ASSERT_EQ(platform::readlink_at(AT_FDCWD, ("/proc/self/fd/" + std::to_string(fd)).c_str(), link), 0);
  const std::uint64_t inode = std::stoull(link.substr(8));
  const int self = ::open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  EXPECT_EQ(platform::held_socket(self, {1, inode}, buffer, err), inode);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(platform::held_socket(self, {1}, buffer, err), std::nullopt);
  EXPECT_EQ(err, 0);
  ::close(fd);
  ::close(self);
  EXPECT_EQ(platform::held_socket(AT_FDCWD, {1}, buffer, err), std::nullopt);
  EXPECT_EQ(err, ENOENT);  // no "fd" here: why it is not known
}

// A descriptor closed between the listing of /proc/<pid>/fd and its readlink (ENOENT) is no
// socket of the process, and the search goes on: a process that opens and closes hundreds of
// descriptors (of /dev/null, listed before its socket) all the time is still found holding
// its socket, every time, with no error.
// Any other failure of an entry's readlink leaves the answer unknown, with that error: here
// an "fd" directory (a stand-in for /proc/<pid>) whose entry is no link (EINVAL).
TEST(AttachListenerPosix, ADescriptorClosedSinceTheListingIsNoSocketAndOtherFailuresAreUnknown) {
  const int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(sock, 0);
  ASSERT_EQ(::dup2(sock, 900), 900);
  ::close(sock);
  std::string link;
  ASSERT_EQ(platform::readlink_at(AT_FDCWD, "/proc/self/fd/900", link), 0);
  const std::uint64_t inode = std::stoull(link.substr(8));
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(null, 0);
  ASSERT_EQ(::dup2(null, 901), 901);
  ::close(null);
  const pid_t parent = ::getpid();
  const pid_t churner = ::fork();
  if (churner == 0) {
    // Dies with the test, whatever ends it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    // Descriptors 3 to 602 opened (on /dev/null) and closed over and over; 900 kept.
    for (;;) {
      for (int fd = 3; fd < 603; ++fd) ::dup2(901, fd);
      for (int fd = 3; fd < 603; ++fd) ::close(fd);
    }
  }
  ::close(901);
  ::close(900);
  ASSERT_GT(churner, 0);
  const int proc = ::open(("/proc/" + std::to_string(churner)).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::vector<char> buffer;
  int found = 0, unknown = 0, err = 0;
  for (int i = 0; i < 300; ++i) {
    const auto held = platform::held_socket(proc, {1, inode}, buffer, err);
    found += held == inode ? 1 : 0;
    unknown += err != 0 ? 1 : 0;
  }
  ::kill(churner, SIGKILL);
  ::waitpid(churner, nullptr, 0);
  ::close(proc);
  EXPECT_EQ(found, 300);
  EXPECT_EQ(unknown, 0);

  const ScratchDir dir;
  ASSERT_EQ(::mkdir((dir / "fd").c_str(), 0755), 0);
  std::ofstream(dir / "fd/3") << "not a link";
  const int fake = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  EXPECT_EQ(platform::held_socket(fake, {inode}, buffer, err), std::nullopt);
  EXPECT_EQ(err, EINVAL);
  ::close(fake);
}

// ---- Containers: names are pids inside the container's pid namespace -------------------------

// A file named "1" in a container's namespace belongs to the container's init, not to the
// host's: candidates come from NSpid within the container's mount namespace.
TEST(LivenessPosix, ContainerFileIsMatchedByNSpidNotByHostPid) {
  if (!test::is_root()) GTEST_SKIP() << "needs root for unshare";
  const std::string unshare = test::find_program("unshare");
  if (unshare.empty()) GTEST_SKIP() << "no unshare";
  Child container;
  ASSERT_TRUE(container.exec(
      {unshare, "--pid", "--mount", "--fork", "--kill-child", "--mount-proc", "sleep", "60"}));
  // The forked child of unshare is pid 1 of the new pid namespace.
  pid_t inner = -1;
  const std::string children = "/proc/" + std::to_string(container.pid()) + "/task/" +
                               std::to_string(container.pid()) + "/children";
  for (int i = 0; i < 200 && inner <= 0; ++i) {
    std::ifstream in(children);
    if (!(in >> inner)) inner = -1;
    if (inner > 0) {
      // Wait for exec into sleep so its mount namespace is final.
      std::ifstream comm("/proc/" + std::to_string(inner) + "/comm");
      std::string name;
      comm >> name;
      if (name != "sleep") inner = -1;
    }
    if (inner <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (inner <= 0) GTEST_SKIP() << "unshare did not start (no pid namespaces here?)";
  const ProcessFacts init = platform::observe_process(inner);
  ASSERT_TRUE(init.mount_namespace.has_value());
  ASSERT_EQ(init.ns_pids.size(), 2u);
  EXPECT_EQ(init.ns_pids.back(), 1);

  // A pid that neither the container (which has only its init) nor the host uses now.
  std::int32_t unused = 30000;
  while (unused > 2 && !(::kill(unused, 0) != 0 && errno == ESRCH)) --unused;
  const std::string unused_name = std::to_string(unused);

  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  test::write_file(dir + "/1", std::vector<std::byte>(4096));
  test::write_file(dir + "/" + unused_name, std::vector<std::byte>(4096));
  NamespaceFacts ns = namespace_facts(dir, {"1", unused_name});
  LivenessScope scope;
  scope.kind = RootKind::container;
  scope.container = ContainerFacts{inner, *init.mount_namespace, std::nullopt, std::nullopt};
  LivenessGatherer gatherer;
  gatherer.gather(ns, scope);

  const LivenessFacts& one = *ns.files[0].liveness;
  ASSERT_EQ(one.candidates.size(), 1u);
  EXPECT_EQ(one.candidates[0].pid, inner) << "matched by NSpid, not host pid 1";
  LivenessSettings settings;
  settings.container = true;
  const LivenessVerdict v1 = decide_liveness(ns.files[0], settings);
  EXPECT_FALSE(reapable(v1.verdict))
      << "sleep started before this file was written: " << v1.message;

  const LivenessFacts& two = *ns.files[1].liveness;
  EXPECT_TRUE(two.candidates.empty());
  EXPECT_EQ(two.candidates_complete, true);
  const LivenessVerdict v2 = decide_liveness(ns.files[1], settings);
  EXPECT_EQ(v2.verdict, Verdict::stale) << v2.message;
  EXPECT_EQ(v2.reason, "no-process-in-namespace");
}

// The processes of every container come from one pass over /proc, not one per container. A
// pass proves nothing about a file made after it began (its process may have started since):
// such a file's search is not complete, so its verdict is never stale, until a new pass, which
// a gatherer takes at most once a second.
TEST(LivenessPosix, ContainerFileMadeAfterTheSharedPassIsNotProvenStaleByIt) {
  if (!test::is_root()) GTEST_SKIP() << "needs root for unshare";
  const std::string unshare = test::find_program("unshare");
  if (unshare.empty()) GTEST_SKIP() << "no unshare";
  Child container;
  ASSERT_TRUE(container.exec({unshare, "--mount", "--fork", "--kill-child", "sleep", "60"}));
  pid_t inner = -1;
  const std::string children = "/proc/" + std::to_string(container.pid()) + "/task/" +
                               std::to_string(container.pid()) + "/children";
  for (int i = 0; i < 200 && inner <= 0; ++i) {
    std::ifstream in(children);
    if (!(in >> inner)) inner = -1;
    if (inner > 0) {
      std::ifstream comm("/proc/" + std::to_string(inner) + "/comm");
      std::string name;
      comm >> name;
      if (name != "sleep") inner = -1;
    }
    if (inner <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(inner, 0) << "unshare did not start";
  const ProcessFacts sleeper = platform::observe_process(inner);
  ASSERT_TRUE(sleeper.mount_namespace.has_value());
  // A free pid just below the last one the kernel gave: pids are handed out upwards from
  // there, so it is taken again only after they wrap (a pid picked at a fixed place could be
  // given to another test's process while this one runs, and the file's verdict be "live").
  std::int32_t last = 0;
  std::ifstream("/proc/sys/kernel/ns_last_pid") >> last;
  std::int32_t unused = last <= 3 ? 30000 : last;
  do {
    --unused;
  } while (unused > 2 && !(::kill(unused, 0) != 0 && errno == ESRCH));
  // In a pid namespace of a few processes every pid below the last may be taken: one far
  // above it is not given soon.
  if (unused <= 2) unused = last + 10000;
  ASSERT_TRUE(::kill(unused, 0) != 0 && errno == ESRCH) << "pid " << unused << " is taken";
  const std::string name = std::to_string(unused);
  LivenessScope scope;
  scope.kind = RootKind::container;
  scope.container = ContainerFacts{inner, *sleeper.mount_namespace, std::nullopt, std::nullopt};
  LivenessSettings settings;
  settings.container = true;

  // The file made after the pass must be judged within the pass's second, or the gatherer
  // rightly takes a new pass that proves it: on a machine stalled for that long (the suite's
  // other tests beside it) the steps are taken again, with a new gatherer.
  std::optional<ScratchDir> scratch;
  std::optional<LivenessGatherer> gathering;
  std::string first_dir, later_dir;
  NamespaceFacts later;
  bool within_the_second = false;
  for (int attempt = 0; attempt < 5 && !within_the_second; ++attempt) {
    scratch.emplace();
    gathering.emplace();
    first_dir = make_namespace(*scratch, "first");
    test::write_file(first_dir + "/" + name, std::vector<std::byte>(4096));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // older than the pass by its margin
    const auto began = std::chrono::steady_clock::now();
    NamespaceFacts first = namespace_facts(first_dir, {name});
    gathering->gather(first, scope);
    ASSERT_TRUE(first.files[0].liveness->candidates_complete.value_or(false));
    EXPECT_EQ(decide_liveness(first.files[0], settings).verdict, Verdict::stale);

    // Made after that pass, judged by the same gatherer within the second: not complete.
    later_dir = make_namespace(*scratch, "later");
    test::write_file(later_dir + "/" + name, std::vector<std::byte>(4096));
    later = namespace_facts(later_dir, {name});
    gathering->gather(later, scope);
    within_the_second = std::chrono::steady_clock::now() - began <
                        std::chrono::milliseconds(platform::kPassIntervalMs);
  }
  ASSERT_TRUE(within_the_second) << "five attempts each took a second or more";
  LivenessGatherer& gatherer = *gathering;
  EXPECT_FALSE(later.files[0].liveness->candidates_complete.value_or(false));
  const LivenessVerdict doubt = decide_liveness(later.files[0], settings);
  EXPECT_FALSE(reapable(doubt.verdict)) << doubt.message;
  // The first namespace's file is still proven by the pass it is older than.
  NamespaceFacts again = namespace_facts(first_dir, {name});
  gatherer.gather(again, scope);
  EXPECT_TRUE(again.files[0].liveness->candidates_complete.value_or(false));

  // A second later the gatherer takes a new pass, which proves it.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  NamespaceFacts retried = namespace_facts(later_dir, {name});
  gatherer.gather(retried, scope);
  ASSERT_TRUE(retried.files[0].liveness->candidates_complete.value_or(false));
  EXPECT_EQ(decide_liveness(retried.files[0], settings).verdict, Verdict::stale);
}

// Which index answers for a container's namespace. ps hands over the placements of its own
// pass (adopt): they answer, and the gatherer takes no pass of its own. Here they place this
// process, as pid 4242, in a namespace no real process has: only the adopted placements can
// make it the candidate of a file "4242" there (a pass over /proc finds nobody in it, and
// the file would be proven stale by a search that never saw the placements it was given).
TEST(LivenessPosix, AdoptedPlacementsAnswerForAContainerNamespaceWithoutAPass) {
  const ProcessFacts self = platform::observe_process(::getpid());
  ASSERT_TRUE(self.mount_namespace.has_value());
  const std::string nowhere = "mnt:[1]";  // no mount namespace has inode 1
  ContainerScan placed;
  placed.own_mount_namespace = *self.mount_namespace;
  placed.placements.push_back(ProcessPlacement{::getpid(), nowhere, 4242, 0, 0});
  placed.placements_complete = true;

  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  test::write_file(dir + "/4242", std::vector<std::byte>(4096));
  NamespaceFacts ns = namespace_facts(dir, {"4242"});
  LivenessScope scope;
  scope.kind = RootKind::container;
  scope.container = ContainerFacts{::getpid(), nowhere, std::nullopt, std::nullopt};
  LivenessGatherer gatherer(LivenessOptions{.lock_state = false});
  gatherer.adopt(placed);
  gatherer.gather(ns, scope);

  const LivenessFacts& lf = *ns.files.at(0).liveness;
  ASSERT_EQ(lf.candidates.size(), 1u) << "the adopted placements were not what answered";
  EXPECT_EQ(lf.candidates[0].pid, ::getpid());
  EXPECT_EQ(lf.candidates[0].existence, Existence::alive);
  EXPECT_EQ(lf.candidates_complete, true);
}

// Without adopted placements, a container whose mount namespace is the scanner's own (the
// tool run inside the container it audits) is answered by a scan of that namespace: the
// gatherer's pass places only the processes outside ours, and would find none of them. A file
// named after this process's own innermost pid has this process as its candidate.
TEST(LivenessPosix, ContainerNamespaceThatIsOursIsScannedNotTakenFromThePass) {
  const ProcessFacts self = platform::observe_process(::getpid());
  ASSERT_TRUE(self.mount_namespace.has_value());
  ASSERT_FALSE(self.ns_pids.empty());
  const std::string name = std::to_string(self.ns_pids.back());

  ScratchDir scratch;
  const std::string dir = make_namespace(scratch);
  test::write_file(dir + "/" + name, std::vector<std::byte>(4096));
  NamespaceFacts ns = namespace_facts(dir, {name});
  LivenessScope scope;
  scope.kind = RootKind::container;
  scope.container = ContainerFacts{::getpid(), *self.mount_namespace, std::nullopt, std::nullopt};
  LivenessGatherer gatherer(LivenessOptions{.lock_state = false});
  gatherer.gather(ns, scope);

  const LivenessFacts& lf = *ns.files.at(0).liveness;
  const bool found = std::any_of(lf.candidates.begin(), lf.candidates.end(),
                                 [](const ProcessFacts& p) { return p.pid == ::getpid(); });
  EXPECT_TRUE(found) << lf.candidates.size() << " candidates, this process not among them";
}

// ---- File systems where /proc's device is not stat's ------------------------------------

// overlayfs with its upper layer on another file system (a container's /tmp): the JVM's
// mapping is of the upper layer's file, so maps print the upper device, not the overlay's
// st_dev; and the flock, taken on the overlay file, goes when the descriptor is closed
// (observed on Linux 6.x). Matching maps by inode keeps such a file live.
TEST(LivenessPosix, OverlayfsMappedFileIsLiveThoughMapsShowAnotherDevice) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount";
  ScratchDir scratch;
  const std::string result = run_as(0, 0, [&]() -> std::string {
    // In a mount namespace of our own: nothing is visible to, or left on, the host.
    if (::unshare(CLONE_NEWNS) != 0) return "skip: unshare " + std::string(std::strerror(errno));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "skip: private";
    const std::string base = scratch.path();
    for (const char* d : {"/lower", "/t", "/merged"}) ::mkdir((base + d).c_str(), 0755);
    if (::mount("tmpfs", (base + "/t").c_str(), "tmpfs", 0, nullptr) != 0) return "skip: tmpfs";
    ::mkdir((base + "/t/upper").c_str(), 0755);
    ::mkdir((base + "/t/work").c_str(), 0755);
    const std::string options =
        "lowerdir=" + base + "/lower,upperdir=" + base + "/t/upper,workdir=" + base + "/t/work";
    if (::mount("overlay", (base + "/merged").c_str(), "overlay", 0, options.c_str()) != 0) {
      return "skip: overlay " + std::string(std::strerror(errno));
    }
    const std::string dir = base + "/merged/hsperfdata_liveness";
    ::mkdir(dir.c_str(), 0755);
    // What HotSpot does: open, flock, size, map shared, close the descriptor.
    const std::string name = std::to_string(::getpid());
    const int fd = ::open((dir + "/" + name).c_str(), O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::ftruncate(fd, 32768) != 0)
      return "setup failed";
    void* region = ::mmap(nullptr, 32768, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (region == MAP_FAILED) return "mmap failed";
    NamespaceFacts ns = namespace_facts(dir, {name});
    LivenessGatherer gatherer;
    gatherer.gather(ns, LivenessScope{});
    const FileFacts& f = ns.files.at(0);
    const ProcessFacts& p = f.liveness->candidates.at(0);
    const LivenessVerdict v = decide_liveness(f, LivenessSettings{});
    std::ostringstream out;
    out << to_string(v.verdict) << " mapped=" << p.maps_backing_file.value_or(false)
        << " inode_only=" << p.maps_inode_only << " lock=" << f.liveness->lock_held.value_or(false);
    return out.str();
  });
  if (result.starts_with("skip:")) GTEST_SKIP() << result;
  EXPECT_TRUE(result.starts_with("live mapped=1 inode_only=1")) << result;
}

// ---- The lock table ---------------------------------------------------------------------------

// /proc/locks unreadable (a masked /proc, hidepid, a security module): liveness falls back to
// the probe, and every namespace says why, with the error of the one read that failed. In a
// mount namespace of our own where /proc/locks is a root-owned file of mode 0 bind-mounted
// over it, gathered as nobody (root would read it anyway).
TEST(LivenessPosix, UnreadableLockTableIsSaidByEveryNamespaceAndTheProbeAnswers) {
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount";
  ScratchDir scratch;
  const std::string first = make_namespace(scratch, "first");
  const std::string second = make_namespace(scratch, "second");
  test::write_file(first + "/100", std::vector<std::byte>(4096));
  test::write_file(second + "/200", std::vector<std::byte>(4096));
  ::chmod((first + "/100").c_str(), 0644);
  ::chmod((second + "/200").c_str(), 0644);
  platform::UniqueFd held(::open((first + "/100").c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(held.get(), LOCK_EX | LOCK_NB), 0);
  const std::string mask = scratch / "locks";
  test::write_file(mask, std::vector<std::byte>(16));
  ASSERT_EQ(::chmod(mask.c_str(), 0), 0);

  const test::ChildResult child = test::run_in_child([&]() -> std::string {
    if (::unshare(CLONE_NEWNS) != 0) return "unshare: " + std::string(std::strerror(errno));
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return "mount private failed";
    if (::mount(mask.c_str(), "/proc/locks", nullptr, MS_BIND, nullptr) != 0) {
      return "bind over /proc/locks: " + std::string(std::strerror(errno));
    }
    if (::setgroups(1, &kNogroup) != 0 || ::setresgid(kNogroup, kNogroup, kNogroup) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0) {
      return "setresuid failed";
    }
    TempRootFacts root;
    root.namespaces.push_back(namespace_facts(first, {"100"}));
    root.namespaces.push_back(namespace_facts(second, {"200"}));
    LivenessGatherer gatherer;
    gatherer.gather(root);
    std::ostringstream out;
    for (const NamespaceFacts& ns : root.namespaces) {
      out << ns.name << ":";
      for (const ObservationError& e : ns.errors) out << " [" << e.path << " " << e.op << " " << e.message << "]";
      for (const FileFacts& f : ns.files) {
        out << " " << f.name << " " << f.liveness->lock_source << " "
            << (f.liveness->lock_held ? (*f.liveness->lock_held ? "held" : "free") : "unknown");
      }
      out << "\n";
    }
    return out.str();
  });
  ASSERT_TRUE(child.finished);
  EXPECT_EQ(child.out,
            "hsperfdata_first: [/proc/locks read Permission denied] 100 probe held\n"
            "hsperfdata_second: [/proc/locks read Permission denied] 200 probe free\n");
}

TEST(LivenessPosix, LockTableSeesOurFlockAndNotOurWaiters) {
  ScratchDir scratch;
  const std::string path = scratch / "locked";
  test::write_file(path, std::vector<std::byte>(16));
  platform::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(fd.get(), LOCK_SH), 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd.get(), &st), 0);
  ObservationError err;
  const auto table = platform::LockTable::read("/proc/locks", &err);
  ASSERT_TRUE(table.has_value()) << err.message;
  const auto found =
      table->find(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
  ASSERT_NE(found.holder, nullptr);
  EXPECT_EQ(found.holder->kind, "FLOCK READ");
  EXPECT_EQ(found.holder->pid, ::getpid());
  EXPECT_FALSE(found.inode_only);
  EXPECT_FALSE(platform::LockTable::read("/nonexistent/locks", &err).has_value());
  EXPECT_EQ(err.code, ENOENT);
}

}  // namespace
}  // namespace hsperfguard
