// Helpers for the reaper's system and adversarial tests (Linux, header-only): private temp
// dirs with namespaces, stale files and sentinels; the reaper's planning half in process; the
// binary's JSON report; held locks, sockets, a sleeping impostor; and real JVMs whose /tmp is
// the private temp dir (their own mount namespace), so that nothing touches the real
// /tmp/hsperfdata_* of the machine.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "jvm_support.hpp"
#include "model/perfdata.hpp"
#include "platform/reap.hpp"
#include "commands/reap_command.hpp"
#include "report/reap_report.hpp"
#include "test_support.hpp"

namespace hsperfguard::reaptest {

inline constexpr uid_t kNobody = 65534;
inline constexpr gid_t kNogroup = 65534;

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

inline std::string basename(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// A pid no process has now, never the same one twice in a test process, and one the kernel
// will not hand out again soon: the kernel gives pids upward from the last one it gave
// (ns_last_pid) and wraps, so a dead pid just below that one comes round again only after the
// whole of pid_max. A pid just above it is the next one a fork of a parallel test gets, and a
// "stale" file named after it would turn into a reused pid mid-test.
inline pid_t dead_pid() {
  static std::mutex mutex;
  static std::set<pid_t> handed_out;
  static pid_t next = 0;
  std::lock_guard<std::mutex> lock(mutex);
  long pid_max = 32768;
  std::ifstream("/proc/sys/kernel/pid_max") >> pid_max;
  if (next == 0) {
    long last = 0;
    std::ifstream("/proc/sys/kernel/ns_last_pid") >> last;
    next = static_cast<pid_t>(last > 300 && last < pid_max ? last : ::getpid());
  }
  for (long tries = 0; tries < pid_max; ++tries) {
    next = next - 1 < 300 ? static_cast<pid_t>(pid_max - 1) : next - 1;
    if (::kill(next, 0) != 0 && errno == ESRCH && !handed_out.contains(next)) {
      handed_out.insert(next);
      return next;
    }
  }
  return 0;
}

inline const std::vector<std::byte>& jvm_region() {
  static const std::vector<std::byte> bytes =
      test::read_file(std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/data/jdk17-default.hsperf");
  return bytes;
}

// A private temp dir (1777) with namespaces, and sentinels outside it that nothing may touch.
struct ReapTree {
  test::ScratchDir scratch;
  std::string tmp = scratch / "tmp";
  std::string outside = scratch / "outside";

  struct Sentinel {
    std::string content;
    ino_t ino = 0;
    uid_t uid = 0;
    mode_t mode = 0;
  };
  std::map<std::string, Sentinel> sentinels;

  ReapTree() {
    ::chmod(scratch.path().c_str(), 0755);  // other users' JVMs traverse it
    ::mkdir(tmp.c_str(), 01777);
    ::chmod(tmp.c_str(), 01777);
    ::mkdir(outside.c_str(), 0755);
  }

  std::string make_namespace(const std::string& user, uid_t uid, gid_t gid, mode_t mode = 0755) {
    const std::string dir = tmp + "/hsperfdata_" + user;
    ::mkdir(dir.c_str(), mode);
    ::chmod(dir.c_str(), mode);
    EXPECT_EQ(::chown(dir.c_str(), uid, gid), 0) << dir;
    return dir;
  }

  // A file with `bytes`, owned like its directory, mode 0600.
  std::string file_in(const std::string& dir, const std::string& name,
                      const std::vector<std::byte>& bytes) {
    const std::string path = dir + "/" + name;
    test::write_file(path, bytes);
    struct stat st {};
    ::stat(dir.c_str(), &st);
    ::chmod(path.c_str(), 0600);
    EXPECT_EQ(::chown(path.c_str(), st.st_uid, st.st_gid), 0) << path;
    return path;
  }
  // A real JDK 17 region under the name of a pid no process has.
  std::string stale_file(const std::string& ns) {
    return file_in(ns, std::to_string(dead_pid()), jvm_region());
  }
  std::string region_file(const std::string& ns, const std::string& name) {
    return file_in(ns, name, jvm_region());
  }
  std::string plain_file(const std::string& ns, const std::string& name) {
    return file_in(ns, name, test::to_bytes("not a region\n"));
  }

  std::string sentinel_in(const std::string& dir, const std::string& name) {
    const std::string path = dir + "/" + name;
    const std::string content = "sentinel " + path + "\n";
    test::write_file(path, test::to_bytes(content));
    ::chmod(path.c_str(), 0644);
    struct stat st {};
    ::lstat(path.c_str(), &st);
    sentinels[path] = Sentinel{content, st.st_ino, st.st_uid, st.st_mode};
    return path;
  }
  std::string sentinel(const std::string& name) { return sentinel_in(outside, name); }

  // Every sentinel still exists as the same inode, with the same owner, mode and content.
  ::testing::AssertionResult sentinels_intact() const {
    for (const auto& [path, s] : sentinels) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0) return ::testing::AssertionFailure() << path << " is gone";
      if (st.st_ino != s.ino || st.st_uid != s.uid || st.st_mode != s.mode) {
        return ::testing::AssertionFailure() << path << " changed (inode, owner or mode)";
      }
      const auto bytes = test::read_file(path);
      if (std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()) != s.content) {
        return ::testing::AssertionFailure() << path << " content changed";
      }
    }
    return ::testing::AssertionSuccess();
  }

  std::size_t count_entries(const std::string& dir) const {
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec)) {
      ++n;
    }
    return n;
  }
};

// The reaper's planning half, in process, on `tmp` (min-age 0 unless given).
inline ReapRun plan_in(const std::string& tmp, ReapCommandOptions options = {}) {
  options.tmpdir = tmp;
  if (options.min_age_ms == ReapCommandOptions{}.min_age_ms) options.min_age_ms = 0;
  ReapRun run;
  observe_and_plan(options, run);
  return run;
}

inline const PlanItem* item_of(const ReapRun& run, const std::string& path) {
  for (const auto& item : run.plan.items) {
    if (item.path == path) return &item;
  }
  return nullptr;
}
inline std::string action_of(const ReapRun& run, const std::string& path) {
  const PlanItem* item = item_of(run, path);
  return item ? std::string(to_string(item->action)) : "not planned";
}
inline std::string verdict_of(const ReapRun& run, const std::string& path) {
  const PlanItem* item = item_of(run, path);
  return item ? std::string(to_string(item->verdict)) : "not planned";
}
inline const ReapActionRecord* record_of(const ReapRun& run, const ExecutionResult& result,
                                         const std::string& path) {
  for (const auto& r : result.actions) {
    if (run.plan.items.at(r.item).path == path) return &r;
  }
  return nullptr;
}
inline ReapOutcome outcome_of(const ReapRun& run, const ExecutionResult& result,
                              const std::string& path) {
  const auto* r = record_of(run, result, path);
  EXPECT_NE(r, nullptr) << path << " was not planned for removal";
  return r ? r->outcome : ReapOutcome::not_attempted;
}
inline std::size_t count(const ExecutionResult& result, ReapOutcome outcome) {
  std::size_t n = 0;
  for (const auto& r : result.actions) n += r.outcome == outcome ? 1 : 0;
  return n;
}

// Runs `hsperfguard reap --tmpdir TMP --no-lock --format json EXTRA...`, checks the report
// against the schema, and returns it.
inline nlohmann::json reap_json(const std::string& tmp, std::vector<std::string> extra, int* exit_code) {
  std::vector<std::string> args = {"reap", "--tmpdir", tmp, "--no-lock", "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto result = test::run_tool(args);
  *exit_code = result.exit_code;
  const auto report = nlohmann::json::parse(result.out, nullptr, false);
  EXPECT_FALSE(report.is_discarded()) << result.out << result.err;
  const auto schema =
      test::run({"sh", "-c",
                 "/usr/bin/python3 " HSPERFGUARD_SOURCE_DIR "/tests/support/validate_json.py " HSPERFGUARD_SOURCE_DIR
                 "/schemas/report.schema.json <<'EOF'\n" +
                     result.out + "\nEOF\n"});
  EXPECT_EQ(schema.exit_code, 0) << schema.err;
  return report;
}

// An exclusive flock on a file, as a live JVM (or another reap) holds it.
class HeldLock {
 public:
  explicit HeldLock(const std::string& path, bool create = false) {
    fd_ = ::open(path.c_str(), (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW, 0600);
    held_ = fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
  }
  ~HeldLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  HeldLock(const HeldLock&) = delete;
  HeldLock& operator=(const HeldLock&) = delete;
  bool held() const { return held_; }

 private:
  int fd_ = -1;
  bool held_ = false;
};

// A UNIX socket file at `path`, as a JVM's attach listener leaves it.
// `hsperfguard audit --tmpdir TMP --format json EXTRA...`: the parsed report (discarded when
// it is not JSON) and the exit code.
inline nlohmann::json audit_json(const std::string& tmp, int* exit_code, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"audit", "--tmpdir", tmp, "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = test::run_tool(args);
  *exit_code = r.exit_code;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// Whether POSIX ACLs can be set on `dir` (setfacl present, the file system supports them).
inline bool acls_work(const std::string& dir) {
  return test::have_program("setfacl") && test::run({"setfacl", "-m", "u:daemon:r", dir}).exit_code == 0 &&
         test::run({"setfacl", "-b", dir}).exit_code == 0;
}

inline bool make_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    ::close(fd);
    return false;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const bool ok = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// A listening socket at `path`, made as HotSpot makes its attach listener: bound to
// `path.tmp`, listening, then renamed to `path`. Closed (nothing listens any more, the file
// stays) on destruction.
class ListeningSocket {
 public:
  explicit ListeningSocket(const std::string& path) {
    const std::string bound = path + ".tmp";
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (bound.size() >= sizeof addr.sun_path) return;
    std::memcpy(addr.sun_path, bound.c_str(), bound.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ok_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
          ::listen(fd_, 1) == 0 && ::rename(bound.c_str(), path.c_str()) == 0;
  }
  ~ListeningSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;
  bool ok() const { return ok_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

// A child that waits for `signal` to be killed, killed and reaped on destruction.
class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess() { stop(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool alive() const { return pid_ > 0 && ::kill(pid_, 0) == 0; }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

 protected:
  pid_t pid_ = -1;
};

// `sleep 600`: a live process that is no JVM, started now (after any region's VM began).
class Sleeper : public ChildProcess {
 public:
  bool start() {
    const std::string sleep = test::find_program("sleep");
    if (sleep.empty()) return false;
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const char* argv[] = {sleep.c_str(), "600", nullptr};
      ::execv(sleep.c_str(), const_cast<char* const*>(argv));
      ::_exit(127);
    }
    if (pid_ < 0) return false;
    // Exec'ed (its maps are sleep's) before the test judges it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      char exe[256] = {};
      const std::string link = "/proc/" + std::to_string(pid_) + "/exe";
      const ssize_t n = ::readlink(link.c_str(), exe, sizeof exe - 1);
      if (n > 0 && std::string(exe, static_cast<std::size_t>(n)).find("sleep") != std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

// ---- JVMs whose /tmp is the private temp dir ---------------------------------------------------

inline std::string user_name_of(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return {};
  return found->pw_name;
}

class PrivateTmpJvm : public ChildProcess {
 public:
  PrivateTmpJvm(const std::string& tmp, const std::string& log) : tmp_(tmp), log_(log) {}
  ~PrivateTmpJvm() {
    // End of input: IdleJvm exits normally and removes its own backing file.
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // Forks java in a new mount namespace with `tmp` bound on /tmp, as uid:gid.
  bool start(uid_t uid, gid_t gid, const std::string& java) {
    user_ = user_name_of(uid);
    if (user_.empty()) return false;
    backing_dir_ = tmp_ + "/hsperfdata_" + user_;
    int in[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return false;
    const int log_fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::vector<std::string> args = {java,           "-Xmx32m",      "-XX:+UseSerialGC",
                                     "-XX:TieredStopAtLevel=1", "-cp", "/tmp/classes",
                                     "IdleJvm"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
                                            "HOME=/"};
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      // Only async-signal-safe calls from here to execve.
      if (::dup2(in[0], 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0) ::_exit(120);
      if (::unshare(CLONE_NEWNS) != 0) ::_exit(121);
      if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(122);
      if (::mount(tmp_.c_str(), "/tmp", nullptr, MS_BIND, nullptr) != 0) ::_exit(123);
      if (::chdir("/tmp") != 0) ::_exit(124);
      if (uid != 0) {
        if (::setgroups(1, &gid) != 0 || ::setresgid(gid, gid, gid) != 0 ||
            ::setresuid(uid, uid, uid) != 0) {
          ::_exit(125);
        }
      }
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(126);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(in[0]);
    if (log_fd >= 0) ::close(log_fd);
    stdin_fd_ = in[1];
    jvm_pid_ = pid_;
    return pid_ > 0;
  }

  std::string backing_file() const { return backing_dir_ + "/" + std::to_string(jvm_pid_); }

  // The region parses, is accessible and the VM finished starting.
  ::testing::AssertionResult wait_ready(std::chrono::seconds timeout = std::chrono::seconds(90)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string state = "no backing file yet";
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return ::testing::AssertionFailure() << "the JVM exited (" << status << ")";
      }
      if (exists(backing_file())) {
        const auto region = perfdata::parse_region(test::read_file(backing_file()));
        const auto* end = region.valid() ? region.find("sun.rt.createVmEndTime") : nullptr;
        if (end != nullptr && end->long_value != 0 && region.prologue->accessible != 0) {
          return ::testing::AssertionSuccess();
        }
        state = "region not ready";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return ::testing::AssertionFailure() << backing_file() << ": " << state;
  }

  ::testing::AssertionResult kill9() {
    if (::kill(pid_, SIGKILL) != 0) return ::testing::AssertionFailure() << "kill";
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return ::testing::AssertionSuccess();
  }

  pid_t pid() const { return jvm_pid_; }
  std::string describe() const {
    const auto bytes = test::read_file(log_);
    return backing_file() + "\n--- JVM output ---\n" +
           std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

 private:
  std::string tmp_, log_, user_, backing_dir_;
  int stdin_fd_ = -1;
  pid_t jvm_pid_ = -1;  // stays after the process is gone: its file keeps the name
};

// Several such JVMs sharing one private temp dir; the test classes are copied into it
// (the JVM's /tmp hides the real one, and the scratch dir with it).
class PrivateTmpJvms {
 public:
  explicit PrivateTmpJvms(ReapTree& tree) : tree_(tree) {}

  ::testing::AssertionResult prepare() {
    java_ = test::find_program("java");
    if (java_.empty()) return ::testing::AssertionFailure() << "no java";
    std::string error;
    const std::string& classes = test::test_classes(&error);
    if (classes.empty()) return ::testing::AssertionFailure() << error;
    const std::string target = tree_.tmp + "/classes";
    std::error_code ec;
    std::filesystem::copy(classes, target, std::filesystem::copy_options::recursive, ec);
    if (ec) return ::testing::AssertionFailure() << "copy classes: " << ec.message();
    std::filesystem::permissions(target, std::filesystem::perms(0755), ec);
    for (const auto& e : std::filesystem::recursive_directory_iterator(target, ec)) {
      std::filesystem::permissions(e.path(), e.is_directory() ? std::filesystem::perms(0755)
                                                              : std::filesystem::perms(0644), ec);
    }
    return ::testing::AssertionSuccess();
  }

  PrivateTmpJvm& start(uid_t uid, gid_t gid) {
    jvms_.emplace_back(tree_.tmp, tree_.scratch / ("jvm" + std::to_string(jvms_.size()) + ".log"));
    EXPECT_TRUE(jvms_.back().start(uid, gid, java_)) << "fork/exec java as " << uid;
    return jvms_.back();
  }

 private:
  ReapTree& tree_;
  std::string java_;
  std::deque<PrivateTmpJvm> jvms_;
};

}  // namespace hsperfguard::reaptest
