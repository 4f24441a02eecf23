#include "sandbox_posix.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace hsperfguard::test {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string readlink_text(const std::string& path) {
  char buf[256];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n));
}

std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                              "/children"));
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

::testing::AssertionResult Sandbox::start(const std::string& script, bool contained) {
  log_path_ = log_dir_ / "log";
  const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int in[2];
  if (log_fd < 0 || ::pipe2(in, O_CLOEXEC) != 0) {
    return ::testing::AssertionFailure() << "open/pipe: " << std::strerror(errno);
  }
  std::vector<std::string> args;
  if (contained) {
    args = {"unshare", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child"};
  }
  args.insert(args.end(), {"/bin/sh", "-c",
                           "unset JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS CLASSPATH; " +
                               script});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a crashed test takes its containers with it
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in[0], 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(log_fd);
  stdin_fd_ = in[1];
  if (child < 0) return ::testing::AssertionFailure() << "fork: " << std::strerror(errno);
  outer_ = child;
  if (!contained) {
    init_ = child;
    return ::testing::AssertionSuccess();
  }
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    const auto kids = children_of(outer_);
    if (!kids.empty()) {
      init_ = kids.front();
      return ::testing::AssertionSuccess();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return ::testing::AssertionFailure() << "unshare made no container: " << log();
}

::testing::AssertionResult Sandbox::wait_for(const std::string& needle, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (log().find(needle) != std::string::npos) return ::testing::AssertionSuccess();
    int status = 0;
    if (::waitpid(outer_, &status, WNOHANG) == outer_) {
      outer_ = -1;
      return ::testing::AssertionFailure() << "the sandbox exited: " << log();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ::testing::AssertionFailure() << "no '" << needle << "' after " << timeout.count()
                                       << " s: " << log();
}

pid_t Sandbox::java_pid() const {
  if (slurp("/proc/" + std::to_string(init_) + "/comm").starts_with("java")) return init_;
  for (pid_t c : children_of(init_)) {
    if (slurp("/proc/" + std::to_string(c) + "/comm").starts_with("java")) return c;
  }
  return -1;
}

void Sandbox::stop() {
  if (init_ > 0 && outer_ > 0) ::kill(init_, SIGKILL);
  if (outer_ > 0) {
    ::kill(outer_, SIGKILL);
    ::waitpid(outer_, nullptr, 0);
  }
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  outer_ = init_ = stdin_fd_ = -1;
}

}  // namespace hsperfguard::test
