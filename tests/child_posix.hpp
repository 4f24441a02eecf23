// A test body run in a forked child (Linux): for what a test must not do in its own process
// (unshare a mount namespace, which a process with threads cannot; take other credentials).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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

inline ChildResult run_in_child(const std::function<std::string()>& body,
                                std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string text;
    int code = 0;
    try {
      text = body();
    } catch (const std::exception& e) {
      text = std::string("exception: ") + e.what();
      code = 2;
    }
    for (std::size_t at = 0; at < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + at, text.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::_exit(code);
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

}  // namespace hsperfguard::test
