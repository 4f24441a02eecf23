// Containers made by the system tests themselves (POSIX, as root): `sh -c script` as pid 1 of
// new mount and pid namespaces (`unshare --mount --pid --fork --mount-proc`), or as a plain
// child, its stdin a pipe the test holds (IdleJvm idles until it closes) and its output in a
// log file. The sandbox dies with its pid 1, which stop() and the destructor kill by pid;
// PR_SET_PDEATHSIG takes it down with a crashed test.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hsperfguard::test {

std::string slurp(const std::string& path);
std::string readlink_text(const std::string& path);
std::vector<pid_t> children_of(pid_t pid);

class Sandbox {
 public:
  Sandbox() = default;
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;
  ~Sandbox() { stop(); }

  // JAVA_TOOL_OPTIONS, _JAVA_OPTIONS, JDK_JAVA_OPTIONS and CLASSPATH are unset first.
  ::testing::AssertionResult start(const std::string& script, bool contained = true);
  // Waits until the log holds `needle` (IdleJvm prints "ready" from main).
  ::testing::AssertionResult wait_for(const std::string& needle,
                                      std::chrono::seconds timeout = std::chrono::seconds(90));
  // Host pid of the java process inside (pid 1 itself, or a child of it); -1 if none.
  pid_t java_pid() const;

  pid_t init() const { return init_; }
  pid_t outer() const { return outer_; }
  std::string root() const { return "/proc/" + std::to_string(init_) + "/root"; }
  std::string mount_namespace() const { return readlink_text("/proc/" + std::to_string(init_) + "/ns/mnt"); }
  std::string log() const { return log_path_.empty() ? std::string() : slurp(log_path_); }
  // A file beside the log, for the script to write results into (open it before covering /tmp).
  std::string result_path(const std::string& name) const { return log_dir_ / name; }

  // Kills pid 1 (the kernel then kills everything in its pid namespace), then reaps unshare.
  void stop();

 private:
  ScratchDir log_dir_;
  std::string log_path_;
  pid_t outer_ = -1;
  pid_t init_ = -1;
  int stdin_fd_ = -1;
};

}  // namespace hsperfguard::test
