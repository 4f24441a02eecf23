// Real JVMs for system tests (POSIX only): start `java` as a child running a test program
// from tests/java/, wait until its backing file is published, stop, continue and kill it,
// and always reap it.
//
// JVM start-up deletes the stale hsperfdata files of the JVM's own user (see docs/POLICY.md,
// section 3), so tests must not keep fixtures in a real /tmp/hsperfdata_<user>; and a killed
// JVM leaves its backing file behind, so JvmProcess removes that file when it is destroyed.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hsperfguard::test {

// The test programs in tests/java/.
inline constexpr const char* kIdleJvmClass = "IdleJvm";  // idles until stdin reaches EOF

// Absolute path of an executable found on PATH, or empty.
std::string find_program(const std::string& name);

// java, javac and jstat are all on PATH: the JVM system tests can run.
bool have_jdk();

// Compiles tests/java/*.java once per test process (javac, into a private directory) and
// returns the class path; on failure, the empty string and `error` says why.
const std::string& test_classes(std::string* error = nullptr);

// The credentials the JVM runs with, set in the child before exec (needs root).
struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
};

struct JvmLaunch {
  std::vector<std::string> jvm_options;  // e.g. "-XX:+UseSerialGC", "-Xmx64m"
  std::string main_class = kIdleJvmClass;
  std::vector<std::string> args;  // program arguments: they appear in sun.rt.javaCommand
  std::optional<RunAs> run_as;
  // Time allowed from fork to a ready backing file; generous for a loaded CI machine.
  std::chrono::milliseconds ready_timeout = std::chrono::seconds(30);
};

// One JVM child process. Destruction SIGKILLs it if it still runs, reaps it, and removes
// its backing file if a kill left it behind (only the very file the JVM published).
class JvmProcess {
 public:
  JvmProcess() = default;
  ~JvmProcess();
  JvmProcess(const JvmProcess&) = delete;
  JvmProcess& operator=(const JvmProcess&) = delete;

  // Starts the JVM and waits until it is ready: its backing file
  // /tmp/hsperfdata_<user>/<pid> parses as a valid region, is marked accessible and has
  // sun.rt.createVmEndTime != 0. On failure the message carries the JVM's output.
  ::testing::AssertionResult start(const JvmLaunch& launch);
  ::testing::AssertionResult start(std::vector<std::string> jvm_options,
                                   std::vector<std::string> args = {},
                                   std::optional<RunAs> run_as = std::nullopt);

  pid_t pid() const { return pid_; }
  // /tmp/hsperfdata_<name of the JVM's effective uid>/<pid>.
  const std::string& backing_file_path() const { return backing_file_; }
  // What the JVM printed so far on stdout and stderr.
  std::string output() const;
  // True from a successful start until the child has been reaped.
  bool running() const { return pid_ > 0 && !reaped_; }

  // SIGSTOP, returning once the whole process has stopped: its counters are then frozen.
  ::testing::AssertionResult stop();
  // SIGCONT, returning once the process runs again.
  ::testing::AssertionResult cont();
  // SIGKILL and reap. The backing file stays, as after a crash, until destruction.
  ::testing::AssertionResult kill9();

 private:
  ::testing::AssertionResult fail(const std::string& what) const;
  void reap_blocking();
  void remove_leftovers();

  pid_t pid_ = -1;
  bool reaped_ = false;
  bool stopped_ = false;
  int exit_status_ = 0;
  int stdin_fd_ = -1;  // write end of the child's stdin; closing it tells IdleJvm to exit
  std::optional<ScratchDir> work_dir_;  // the child's cwd and its output log
  std::string log_path_;
  std::string backing_file_;
  std::string namespace_dir_;
  bool namespace_dir_existed_ = true;
  bool other_user_ = false;
  // Identity of the backing file the JVM published, so that only that file is removed.
  dev_t backing_dev_ = 0;
  ino_t backing_ino_ = 0;
  bool backing_seen_ = false;
};

}  // namespace hsperfguard::test
