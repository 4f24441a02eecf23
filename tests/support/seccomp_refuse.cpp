// seccomp_refuse: runs a command with openat2 and io_uring refused, as container runtimes'
// default seccomp profiles refuse them (Docker's and containerd's return EPERM for a system
// call not on their allow list: io_uring has been off it since 2023, older profiles lack
// openat2; some profiles return ENOSYS instead). On a kernel that has both, this is how the
// suite runs the fallbacks: the O_NOFOLLOW walk beneath a root, the lstat before each open,
// and one system call at a time instead of io_uring batches.
//
//   seccomp_refuse [--errno EPERM|ENOSYS] [--refuse openat2|io_uring|both] [--] COMMAND [ARG...]
//
// Installs a seccomp filter that makes openat2 and io_uring_setup, io_uring_enter and
// io_uring_register (by default both; --refuse io_uring is today's Docker profile, openat2
// alone an older one's on a kernel with io_uring) fail with the errno given (EPERM by default)
// and allows every other system call (refuse_system_calls in refusals_posix.hpp), checks that
// what it refuses now fails with that errno, then execs COMMAND. A filter is inherited across
// fork and exec and cannot be removed, so `seccomp_refuse -- ctest` runs the whole suite,
// every program the tests start included (hsperfguard, java, strace, unshare, setpriv), under
// it. Exit 125 when the filter could not be installed or does not refuse what it should; 126
// or 127 when COMMAND cannot be run.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "refusals_posix.hpp"

namespace {

struct ErrnoName {
  std::string_view name;
  int code;
};
constexpr ErrnoName kErrnos[] = {{"EPERM", EPERM}, {"ENOSYS", ENOSYS}};

int usage(const char* message) {
  std::fprintf(stderr,
               "seccomp_refuse: %s\n"
               "usage: seccomp_refuse [--errno EPERM|ENOSYS] [--refuse openat2|io_uring|both] "
               "[--] COMMAND [ARG...]\n",
               message);
  return 125;
}

// What the refused calls return now: nullptr when each fails with `code`, else what is wrong.
const char* check_refused(bool openat2, bool io_uring, int code) {
  if (openat2) {
    const int answer = hsperfguard::test::openat2_refusal();
    if (answer == 0) return "openat2 still works";
    if (answer != code) return "openat2 fails with another errno";
  }
  if (io_uring) {
    const int answer = hsperfguard::test::io_uring_refusal();
    if (answer == 0) return "io_uring_setup still works";
    if (answer != code) return "io_uring_setup fails with another errno";
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hsperfguard::test;
  const ErrnoName* chosen = &kErrnos[0];
  bool openat2 = true, io_uring = true;
  int first = 1;
  for (; first < argc; ++first) {
    const std::string_view arg = argv[first];
    if (arg == "--") {
      ++first;
      break;
    }
    if (arg != "--errno" && arg != "--refuse") break;
    if (first + 1 >= argc) return usage("an option needs a value");
    const std::string_view value = argv[++first];
    if (arg == "--refuse") {
      if (value != "openat2" && value != "io_uring" && value != "both") {
        return usage("--refuse takes openat2, io_uring or both");
      }
      openat2 = value != "io_uring";
      io_uring = value != "openat2";
      continue;
    }
    chosen = nullptr;
    for (const auto& e : kErrnos) {
      if (e.name == value) chosen = &e;
    }
    if (chosen == nullptr) return usage("--errno takes EPERM or ENOSYS");
  }
  if (first >= argc) return usage("no command given");
  const bool installed =
      refuse_system_calls(openat2 && io_uring ? kOpenat2AndIoUring
                          : openat2           ? kOpenat2
                                              : kIoUring,
                          chosen->code);
  if (!installed) {
    std::fprintf(stderr, "seccomp_refuse: cannot install the filter: %s\n", std::strerror(errno));
    return 125;
  }
  if (const char* wrong = check_refused(openat2, io_uring, chosen->code)) {
    std::fprintf(stderr, "seccomp_refuse: the filter is installed but %s\n", wrong);
    return 125;
  }
  ::execvp(argv[first], argv + first);
  const int err = errno;
  std::fprintf(stderr, "seccomp_refuse: %s: %s\n", argv[first], std::strerror(err));
  return err == ENOENT ? 127 : 126;
}
