// A test body run in a forked child (Linux): for what a test must not do in its own process
// (unshare a mount namespace, which a process with threads cannot; take other credentials).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

namespace hsperfguard::test {

// Runs `body` in a forked child (its own credentials or mount namespace) and returns what it
// wrote, or a failure text. A child that hangs is killed: a blocked observation fails the test
// instead of stalling the suite.
struct ChildResult {
  bool finished = false;
  int status = -1;
  std::string out;
};

// In a child: runs `body`, writes what it returned (or the exception it threw) to `fd`, and
// exits, 0 or 2 after an exception.
[[noreturn]] inline void answer_and_exit(int fd, const std::function<std::string()>& body) {
  std::string text;
  int code = 0;
  try {
    text = body();
  } catch (const std::exception& e) {
    text = std::string("exception: ") + e.what();
    code = 2;
  }
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n <= 0) break;
    at += static_cast<std::size_t>(n);
  }
  ::_exit(code);
}

inline ChildResult run_in_child(const std::function<std::string()>& body,
                                std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    answer_and_exit(fds[1], body);
  }
  ::close(fds[1]);
  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) {
      result.finished = true;
      break;
    }
    result.out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (!result.finished) ::kill(pid, SIGKILL);
  ::waitpid(pid, &result.status, 0);
  return result;
}

// Runs `body` in a child in a new user namespace whose maps its parent writes, as a container
// runtime does ("0 0 1\n65534 65534 1\n": root and nobody). Root there keeps every capability
// over files whose owner is mapped and none over the rest, and the kernel can give no id the
// maps leave out. What `body` returned, or why it could not run.
inline ChildResult run_in_user_namespace(const std::string& uid_map, const std::string& gid_map,
                                         const std::function<std::string()>& body,
                                         std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  return run_in_child(
      [&]() -> std::string {
        int go[2], out[2];
        if (::pipe(go) != 0 || ::pipe(out) != 0) return "pipe failed";
        // clone with CLONE_NEWUSER, not fork and unshare: unshare refuses a process with more
        // than one thread (EINVAL), and under ThreadSanitizer a forked child has its helper
        // thread. Like fork otherwise (no new stack: the child goes on on a copy of this one).
        const auto pid = static_cast<pid_t>(
            ::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
        if (pid == 0) {
          ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // killed with its parent if it hangs
          ::close(go[1]);
          ::close(out[0]);
          char c = 0;  // the maps are written
          if (::read(go[0], &c, 1) != 1 || c != 'g') ::_exit(1);
          answer_and_exit(out[1], body);
        }
        const int err = errno;
        ::close(go[0]);
        ::close(out[1]);
        std::string text;
        if (pid < 0) {
          text = std::string("clone(CLONE_NEWUSER) refused: ") + std::strerror(err);
        } else {
          const std::string proc = "/proc/" + std::to_string(pid);
          const auto write_map = [](const std::string& path, const std::string& map) {
            const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
            const bool ok = fd >= 0 && ::write(fd, map.data(), map.size()) == static_cast<ssize_t>(map.size());
            if (fd >= 0) ::close(fd);
            return ok;
          };
          if (!write_map(proc + "/uid_map", uid_map) || !write_map(proc + "/gid_map", gid_map)) {
            text = "writing the maps failed";
          } else if (const char g = 'g'; ::write(go[1], &g, 1) == 1) {
            char buffer[512];
            for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) {
              text.append(buffer, static_cast<std::size_t>(n));
            }
          }
        }
        ::close(go[1]);
        ::close(out[0]);
        int status = 0;
        if (pid > 0) ::waitpid(pid, &status, 0);
        return text;
      },
      timeout);
}

}  // namespace hsperfguard::test
