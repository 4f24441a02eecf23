#include "jvm_support.hpp"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>

#include "model/perfdata.hpp"

extern char** environ;

namespace hsperfguard::test {
namespace {

namespace fs = std::filesystem;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "changed state (wait status " + std::to_string(status) + ")";
}

std::optional<std::string> user_name(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return std::string(found->pw_name);
}

// Environment for the JVM without the variables that would add options behind our back.
std::vector<std::string> clean_environment() {
  static constexpr std::string_view kDropped[] = {
      "JAVA_TOOL_OPTIONS=", "_JAVA_OPTIONS=", "JDK_JAVA_OPTIONS=", "CLASSPATH="};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool dropped = std::any_of(std::begin(kDropped), std::end(kDropped),
                                     [&](std::string_view p) { return entry.starts_with(p); });
    if (!dropped) env.emplace_back(entry);
  }
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Reports a failed step of the child on its stderr (the JVM's log) and exits.
[[noreturn]] void child_fail(const char* what) {
  const char* reason = std::strerror(errno);  // the child has a single thread
  (void)!::write(2, what, std::strlen(what));
  (void)!::write(2, ": ", 2);
  (void)!::write(2, reason, std::strlen(reason));
  (void)!::write(2, "\n", 1);
  ::_exit(127);
}

// Child side of fork(): only async-signal-safe calls from here to execve.
[[noreturn]] void exec_child(int stdin_fd, int log_fd, const char* cwd, const RunAs* run_as,
                             pid_t parent, const char* program, char* const* argv,
                             char* const* envp) {
  if (::dup2(stdin_fd, 0) < 0 || ::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0) child_fail("dup2");
  if (::chdir(cwd) != 0) child_fail("chdir");
  if (run_as != nullptr) {
    if (::setgroups(1, &run_as->gid) != 0) child_fail("setgroups");
    if (::setresgid(run_as->gid, run_as->gid, run_as->gid) != 0) child_fail("setresgid");
    if (::setresuid(run_as->uid, run_as->uid, run_as->uid) != 0) child_fail("setresuid");
  }
#ifdef __linux__
  // Set after the credential change, which clears it: a dead test leaves no JVM behind.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail("prctl");
  if (::getppid() != parent) ::_exit(127);
#else
  (void)parent;
#endif
  ::execve(program, argv, envp);
  child_fail(program);
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    return ::access(name.c_str(), X_OK) == 0 ? name : std::string();
  }
  const char* path_env = std::getenv("PATH");
  std::istringstream path(path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(path, dir, ':');) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return {};
}

bool have_jdk() {
  return !find_program("java").empty() && !find_program("javac").empty() &&
         !find_program("jstat").empty();
}

const std::string& test_classes(std::string* error) {
  struct Compiled {
    std::optional<ScratchDir> dir;
    std::string classes;
    std::string error;
  };
  static Compiled compiled;
  static std::once_flag once;
  std::call_once(once, [] {
    Compiled& c = compiled;
    const std::string javac = find_program("javac");
    if (javac.empty()) {
      c.error = "javac is not on PATH";
      return;
    }
    std::vector<std::string> sources;
    std::error_code ec;
    for (const auto& entry :
         fs::directory_iterator(std::string(HSPERFGUARD_SOURCE_DIR) + "/tests/java", ec)) {
      if (entry.path().extension() == ".java") sources.push_back(entry.path().string());
    }
    if (sources.empty()) {
      c.error = "no tests/java/*.java sources found";
      return;
    }
    std::sort(sources.begin(), sources.end());
    c.dir.emplace();
    const std::string classes = *c.dir / "classes";
    // -XX:-UsePerfData: javac's own JVM neither publishes a file nor deletes stale ones.
    std::vector<std::string> argv = {javac,  "-J-XX:-UsePerfData", "-encoding", "UTF-8", "-d",
                                     classes};
    argv.insert(argv.end(), sources.begin(), sources.end());
    const CommandResult r = run(argv);
    if (r.exit_code != 0) {
      c.error = "javac failed (" + std::to_string(r.exit_code) + "): " + r.err + r.out;
      return;
    }
    // Readable by a JVM started as another user, whatever the umask.
    fs::permissions(c.dir->path(), fs::perms(0755), ec);
    for (const auto& entry : fs::recursive_directory_iterator(classes, ec)) {
      fs::permissions(entry.path(), entry.is_directory() ? fs::perms(0755) : fs::perms(0644), ec);
    }
    fs::permissions(classes, fs::perms(0755), ec);
    c.classes = classes;
  });
  if (error != nullptr) *error = compiled.error;
  return compiled.classes;
}

JvmProcess::~JvmProcess() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    reap_blocking();
  }
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  remove_leftovers();
}

::testing::AssertionResult JvmProcess::start(std::vector<std::string> jvm_options,
                                             std::vector<std::string> args,
                                             std::optional<RunAs> run_as) {
  JvmLaunch launch;
  launch.jvm_options = std::move(jvm_options);
  launch.args = std::move(args);
  launch.run_as = run_as;
  return start(launch);
}

::testing::AssertionResult JvmProcess::start(const JvmLaunch& launch) {
  if (pid_ > 0) return ::testing::AssertionFailure() << "JvmProcess::start called twice";
  const std::string java = find_program("java");
  if (java.empty()) return ::testing::AssertionFailure() << "java is not on PATH";
  std::string compile_error;
  const std::string& classes = test_classes(&compile_error);
  if (classes.empty()) return ::testing::AssertionFailure() << compile_error;

  const uid_t uid = launch.run_as ? launch.run_as->uid : ::geteuid();
  other_user_ = uid != ::geteuid();
  const auto user = user_name(uid);
  if (!user) return ::testing::AssertionFailure() << "uid " << uid << " has no user name";
  // Linux: the JVM ignores TMPDIR and java.io.tmpdir and always uses /tmp.
  namespace_dir_ = "/tmp/hsperfdata_" + *user;
  struct stat st {};
  namespace_dir_existed_ = ::lstat(namespace_dir_.c_str(), &st) == 0;

  work_dir_.emplace();
  ::chmod(work_dir_->path().c_str(), 0755);  // the cwd of a JVM that may run as another user
  log_path_ = *work_dir_ / "jvm.log";
  const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return ::testing::AssertionFailure() << errno_text("open log");
  int stdin_pipe[2];
  if (::pipe2(stdin_pipe, O_CLOEXEC) != 0) {
    ::close(log_fd);
    return ::testing::AssertionFailure() << errno_text("pipe2");
  }

  std::vector<std::string> argv_strings = {java};
  argv_strings.insert(argv_strings.end(), launch.jvm_options.begin(), launch.jvm_options.end());
  argv_strings.insert(argv_strings.end(), {"-cp", classes, launch.main_class});
  argv_strings.insert(argv_strings.end(), launch.args.begin(), launch.args.end());
  std::vector<std::string> env_strings = clean_environment();
  const std::vector<char*> argv = c_strings(argv_strings);
  const std::vector<char*> envp = c_strings(env_strings);
  const RunAs* run_as = launch.run_as ? &*launch.run_as : nullptr;
  const pid_t parent = ::getpid();

  const pid_t child = ::fork();
  if (child == 0) {
    exec_child(stdin_pipe[0], log_fd, work_dir_->path().c_str(), run_as, parent, java.c_str(),
               argv.data(), envp.data());
  }
  const int fork_errno = errno;
  ::close(stdin_pipe[0]);
  ::close(log_fd);
  if (child < 0) {
    ::close(stdin_pipe[1]);
    errno = fork_errno;
    return ::testing::AssertionFailure() << errno_text("fork");
  }
  pid_ = child;
  stdin_fd_ = stdin_pipe[1];
  backing_file_ = namespace_dir_ + "/" + std::to_string(pid_);

  // Poll the backing file with our own parser until the VM says it finished starting.
  const auto deadline = std::chrono::steady_clock::now() + launch.ready_timeout;
  std::string last_state = "no backing file yet";
  while (true) {
    int status = 0;
    const pid_t w = ::waitpid(pid_, &status, WNOHANG);
    if (w == pid_) {
      reaped_ = true;
      exit_status_ = status;
      return fail("the JVM " + describe_status(status) + " before it was ready");
    }
    struct stat file {};
    if (::stat(backing_file_.c_str(), &file) == 0) {
      backing_dev_ = file.st_dev;
      backing_ino_ = file.st_ino;
      backing_seen_ = true;
      const perfdata::Region region = perfdata::parse_region(read_file(backing_file_));
      const perfdata::Entry* end_time =
          region.valid() ? region.find("sun.rt.createVmEndTime") : nullptr;
      if (!region.valid()) {
        last_state = "region not valid yet: " + (region.error ? region.error->reason : "");
      } else if (region.prologue->accessible == 0) {
        last_state = "region not accessible yet";
      } else if (end_time == nullptr || end_time->long_value == 0) {
        last_state = "sun.rt.createVmEndTime not set yet";
      } else {
        return ::testing::AssertionSuccess();
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string message = "JVM " + std::to_string(pid_) + " not ready after " +
                                  std::to_string(launch.ready_timeout.count()) + " ms (" +
                                  backing_file_ + ": " + last_state + ")";
      ::kill(pid_, SIGKILL);
      reap_blocking();
      return fail(message);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string JvmProcess::output() const {
  if (log_path_.empty()) return {};
  const auto bytes = read_file(log_path_);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

::testing::AssertionResult JvmProcess::stop() {
  if (!running()) return ::testing::AssertionFailure() << "stop: no running JVM";
  if (stopped_) return ::testing::AssertionSuccess();
  if (::kill(pid_, SIGSTOP) != 0) return fail(errno_text("kill(SIGSTOP)"));
  while (true) {
    int status = 0;
    const pid_t w = ::waitpid(pid_, &status, WUNTRACED);
    if (w < 0 && errno == EINTR) continue;
    if (w != pid_) return fail(errno_text("waitpid(WUNTRACED)"));
    if (WIFSTOPPED(status)) break;
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      reaped_ = true;
      exit_status_ = status;
      return fail("stop: the JVM " + describe_status(status));
    }
  }
  stopped_ = true;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult JvmProcess::cont() {
  if (!running()) return ::testing::AssertionFailure() << "cont: no running JVM";
  if (!stopped_) return ::testing::AssertionSuccess();
  if (::kill(pid_, SIGCONT) != 0) return fail(errno_text("kill(SIGCONT)"));
  while (true) {
    int status = 0;
    const pid_t w = ::waitpid(pid_, &status, WCONTINUED);
    if (w < 0 && errno == EINTR) continue;
    if (w != pid_) return fail(errno_text("waitpid(WCONTINUED)"));
    if (WIFCONTINUED(status)) break;
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      reaped_ = true;
      exit_status_ = status;
      return fail("cont: the JVM " + describe_status(status));
    }
  }
  stopped_ = false;
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult JvmProcess::kill9() {
  if (!running()) return ::testing::AssertionFailure() << "kill9: no running JVM";
  if (::kill(pid_, SIGKILL) != 0) return fail(errno_text("kill(SIGKILL)"));
  reap_blocking();
  if (!WIFSIGNALED(exit_status_) || WTERMSIG(exit_status_) != SIGKILL) {
    return fail("kill9: the JVM " + describe_status(exit_status_));
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult JvmProcess::fail(const std::string& what) const {
  return ::testing::AssertionFailure() << what << "\n--- JVM output ---\n" << output();
}

void JvmProcess::reap_blocking() {
  int status = 0;
  pid_t w = 0;
  do {
    w = ::waitpid(pid_, &status, 0);
  } while (w < 0 && errno == EINTR);
  reaped_ = true;
  stopped_ = false;
  exit_status_ = status;
}

// Removes what a killed JVM left: its backing file, only if it is still the file the JVM
// published and no process holds its lock (a reused pid would), locked while unlinking as
// HotSpot does; and the user's namespace directory if this JVM created it for another user.
void JvmProcess::remove_leftovers() {
  if (backing_seen_) {
    const int fd = ::open(backing_file_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && st.st_dev == backing_dev_ && st.st_ino == backing_ino_ &&
          ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        ::unlink(backing_file_.c_str());
      }
      ::close(fd);
    }
  }
  if (other_user_ && !namespace_dir_existed_ && !namespace_dir_.empty()) {
    ::rmdir(namespace_dir_.c_str());  // fails, harmlessly, if anything else lives there
  }
}

}  // namespace hsperfguard::test
