// The reap's single-instance lock on POSIX (platform/lock_and_journal.hpp): a lock file another
// process holds locked is busy, naming its holder, at once and never as an error; once released
// it is taken.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "platform/lock_and_journal.hpp"
#include "test_support.hpp"

namespace hsperfguard {
namespace {

// What another process's one attempt (wait=false) came to, as its exit status: 0 busy naming
// `holder`, 1 acquired, 2 an error, 3 busy naming another pid; killed by SIGALRM when the
// attempt did not return within 20 s (a non-blocking attempt must not wait).
int attempt_in_another_process(const std::string& path, pid_t holder) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::alarm(20);
    auto lock = platform::InstanceLock::acquire(path, false, std::nullopt, nullptr);
    switch (lock.status()) {
      case platform::InstanceLock::Status::busy:
        ::_exit(lock.holder_pid() == holder && !lock.error() ? 0 : 3);
      case platform::InstanceLock::Status::acquired:
        ::_exit(1);
      default:
        ::_exit(2);
    }
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(InstanceLockPosix, ALockHeldByAnotherProcessIsBusyAtOnceNamingItsHolder) {
  test::ScratchDir scratch;
  const std::string path = scratch / "reap.lock";
  {
    auto held = platform::InstanceLock::acquire(path, false, std::nullopt, nullptr);
    ASSERT_EQ(held.status(), platform::InstanceLock::Status::acquired)
        << (held.error() ? held.error()->message : "");
    EXPECT_EQ(attempt_in_another_process(path, ::getpid()), 0)
        << "0 busy naming us, 1 acquired, 2 an error, 3 another holder, 142 it waited (SIGALRM)";
  }
  EXPECT_EQ(attempt_in_another_process(path, ::getpid()), 1) << "released: taken";
}

// The fault sweep's finding, at the lock itself: a non-blocking flock that a signal
// interrupted (EINTR) says nothing of another holder; the attempt is made again and takes the
// lock. strace makes the first flock of another run of this test program answer EINTR; that
// run (HSPERFGUARD_TEST_LOCK names the file) makes one attempt, and its exit status says what
// the attempt came to: 0 acquired, 1 busy, 2 an error.
TEST(InstanceLockPosix, AnAttemptInterruptedByASignalIsMadeAgainAndTakesTheLock) {
  if (const char* path = std::getenv("HSPERFGUARD_TEST_LOCK")) {
    auto lock = platform::InstanceLock::acquire(path, false, std::nullopt, nullptr);
    std::_Exit(lock.status() == platform::InstanceLock::Status::acquired ? 0
               : lock.status() == platform::InstanceLock::Status::busy   ? 1
                                                                           : 2);
  }
  if (!test::have_program("strace")) GTEST_SKIP() << "needs strace to make flock answer EINTR";
  test::ScratchDir scratch;
  const std::string path = scratch / "reap.lock";
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const auto r = test::run({"strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=flock", "-e",
                            "inject=flock:error=EINTR:when=1", "env", test::traced_asan_options(),
                            "HSPERFGUARD_TEST_LOCK=" + path, "timeout", "-s", "KILL", "20", self,
                            "--gtest_filter=InstanceLockPosix.AnAttemptInterruptedByASignalIsMadeAgainAndTakesTheLock"});
  EXPECT_EQ(r.exit_code, 0) << "0 acquired, 1 busy, 2 an error\n" << r.out << r.err;
}

}  // namespace
}  // namespace hsperfguard
