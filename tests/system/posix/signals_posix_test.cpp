// hold_standard_streams (platform/signals.hpp) on Linux: a standard stream closed at start is
// given a stand-in, an O_PATH descriptor of "/", so that no file the process opens takes its
// number and a write to it fails as to a closed stream; an open stream is left as it is; and
// when no stand-in can be opened the caller is told, with the errno. Each case runs in a child
// process (the test's own streams are GoogleTest's), which says what it found through a pipe
// (test::run_in_child).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

#include "child_posix.hpp"
#include "platform/signals.hpp"

namespace hsperfguard::platform {
namespace {

// Runs `body` in a child (test::run_in_child) whose three streams are open first, whatever
// the runner gave the test (a CI job may run it with standard input closed): each case closes
// what it means to close. What `body` returned, with " (child failed)" after it otherwise.
std::string in_child(const std::function<std::string()>& body) {
  const test::ChildResult r = test::run_in_child([&] {
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd <= 2 && null != -1; ++fd) {
      if (::fcntl(fd, F_GETFD) == -1) ::dup2(null, fd);
    }
    if (null > 2) ::close(null);
    return body();
  });
  const bool ok = r.finished && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
  return r.out + (ok ? "" : " (child failed)");
}

// What descriptor `fd` is: "closed", "stand-in" (an O_PATH of "/"), or "other".
std::string what_is(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags == -1) return "closed";
  struct stat st {};
  struct stat root {};
  if ((flags & O_PATH) != 0 && ::fstat(fd, &st) == 0 && ::stat("/", &root) == 0 &&
      st.st_dev == root.st_dev && st.st_ino == root.st_ino) {
    return "stand-in";
  }
  return "other";
}

TEST(HoldStandardStreams, ClosedStreamsGetAStandInThatNoFileTakesAndNothingWritesTo) {
  const std::string said = in_child([] {
    ::close(STDIN_FILENO);
    ::close(STDOUT_FILENO);
    ::close(STDERR_FILENO);
    const int rc = hold_standard_streams();
    std::string out = "rc=" + std::to_string(rc);
    for (int fd = 0; fd <= 2; ++fd) out += " " + std::to_string(fd) + "=" + what_is(fd);
    const int opened = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    out += " opened_at_3_or_above=" + std::string(opened >= 3 ? "yes" : "no");
    const ssize_t written = ::write(STDOUT_FILENO, "x", 1);
    out += " write=" + std::to_string(written) + (written == -1 && errno == EBADF ? ":EBADF" : "");
    return out;
  });
  EXPECT_EQ(said, "rc=0 0=stand-in 1=stand-in 2=stand-in opened_at_3_or_above=yes write=-1:EBADF");
}

TEST(HoldStandardStreams, OnlyTheClosedOneIsHeldTheOpenOnesAreLeftAsTheyAre) {
  const std::string said = in_child([] {
    struct stat in_before {};
    struct stat err_before {};
    ::fstat(STDIN_FILENO, &in_before);
    ::fstat(STDERR_FILENO, &err_before);
    ::close(STDOUT_FILENO);
    const int rc = hold_standard_streams();
    struct stat in_after {};
    struct stat err_after {};
    ::fstat(STDIN_FILENO, &in_after);
    ::fstat(STDERR_FILENO, &err_after);
    const bool same = in_before.st_ino == in_after.st_ino && in_before.st_dev == in_after.st_dev &&
                      err_before.st_ino == err_after.st_ino && err_before.st_dev == err_after.st_dev;
    return "rc=" + std::to_string(rc) + " 1=" + what_is(1) + " others_unchanged=" + (same ? "yes" : "no");
  });
  EXPECT_EQ(said, "rc=0 1=stand-in others_unchanged=yes");
}

// All three open, errno left at EBADF by an earlier call, and no descriptor to spare: nothing is
// opened (an open would fail with EMFILE and stop the run for nothing).
TEST(HoldStandardStreams, OpenStreamsOpenNothingWhateverErrnoSaysBefore) {
  const std::string said = in_child([] {
    struct rlimit none {3, 3};  // 0, 1, 2 open; nothing more may be opened
    if (::setrlimit(RLIMIT_NOFILE, &none) != 0) return std::string("setrlimit failed");
    errno = EBADF;
    const int rc = hold_standard_streams();
    return "rc=" + std::to_string(rc) + " 0=" + what_is(0) + " 1=" + what_is(1) + " 2=" + what_is(2);
  });
  EXPECT_EQ(said, "rc=0 0=other 1=other 2=other");
}

// A closed stream and no descriptor to open in its place: the errno, for the caller to stop on.
TEST(HoldStandardStreams, AStandInThatCannotBeOpenedIsTheOpensErrno) {
  const std::string said = in_child([] {
    ::close(STDERR_FILENO);
    struct rlimit two {2, 2};  // descriptor 2 itself may not be given out
    if (::setrlimit(RLIMIT_NOFILE, &two) != 0) return std::string("setrlimit failed");
    const int rc = hold_standard_streams();
    return "rc=" + std::string(rc == EMFILE ? "EMFILE" : std::to_string(rc)) + " 2=" + what_is(2);
  });
  EXPECT_EQ(said, "rc=EMFILE 2=closed");
}

}  // namespace
}  // namespace hsperfguard::platform
