// The reap's single-instance lock on POSIX (platform/lock_and_journal.hpp): a lock file another
// process holds locked is busy, naming its holder, at once and never as an error; once released
// it is taken.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace
}  // namespace hsperfguard
