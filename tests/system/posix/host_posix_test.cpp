// WholeStandardOutput (platform/host.hpp) on Linux: std::cout written whole to a pipe or a
// terminal, whatever O_NONBLOCK says, buffered by line on a terminal and by 64 KiB elsewhere,
// a write that takes nothing or fails ending the stream, a stop signal ending a write that
// waits and any other signal not. Each case runs in a child whose standard output is the pipe
// or terminal it made (test::run_in_child); the test's own stdout is GoogleTest's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "child_posix.hpp"
#include "platform/host.hpp"
#include "platform/signals.hpp"
#include "refusals_posix.hpp"

namespace hsperfguard::platform {
namespace {

using std::chrono::milliseconds;

// What `body` returned in a child; "(child failed)" when it did not end by itself.
std::string in_child(const std::function<std::string()>& body) {
  std::fflush(stdout);  // nothing of GoogleTest's buffered output may reach the child's stdout
  const test::ChildResult r = test::run_in_child(body, std::chrono::seconds(30));
  return r.finished && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 ? r.out : r.out + " (child failed)";
}

// Every byte `fd` gives until its writers are gone (EOF on a pipe, EIO on a terminal).
std::string read_to_end(int fd) {
  std::string got;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      got.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EAGAIN) {
      std::this_thread::sleep_for(milliseconds(1));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return got;
    }
  }
}

// What `fd` holds now, without waiting (the read end is non-blocking).
std::string available(int fd) {
  std::string got;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  return got;
}

// In the child: standard output becomes `write_end`, read by a thread from `read_end` after
// `delay`; finish() ends the output and gives what the reader got.
class Capture {
 public:
  Capture(int write_end, int read_end, milliseconds delay) : read_end_(read_end) {
    ::dup2(write_end, STDOUT_FILENO);
    ::close(write_end);
    reader_ = std::thread([this, delay] {
      std::this_thread::sleep_for(delay);
      got_ = read_to_end(read_end_);
    });
  }
  std::string finish() {
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    ::dup2(null, STDOUT_FILENO);  // the last writer gone: the reader sees the end
    ::close(null);
    reader_.join();
    return got_;
  }

 private:
  int read_end_;
  std::thread reader_;
  std::string got_;
};

void set_flag(int fd, int flag) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | flag); }

double cpu_seconds() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

extern "C" void ignore_signal(int) {}

// Writes, one character at a time, in small pieces and in one piece larger than the buffer,
// what `expected` gets; a thread interrupts the writer twice with SIGUSR1 (a handler without
// SA_RESTART, which asks no stop) while the reader waits a second. "whole", the stream's
// state and whether the writer spun, or where the output first differs.
std::string write_through_a_slow_reader(bool nonblocking) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
  if (nonblocking) set_flag(fds[1], O_NONBLOCK);
  struct sigaction action {};
  action.sa_handler = ignore_signal;
  ::sigaction(SIGUSR1, &action, nullptr);
  Capture capture(fds[1], fds[0], milliseconds(1000));
  std::string expected;
  const double cpu_before = cpu_seconds();
  const pthread_t writer = ::pthread_self();
  std::thread interrupter([writer] {
    for (int i = 0; i < 2; ++i) {
      std::this_thread::sleep_for(milliseconds(300));
      ::pthread_kill(writer, SIGUSR1);
    }
  });
  bool good = true;
  {
    const WholeStandardOutput whole;
    for (int i = 0; i < 70'000; ++i) {
      const char c = static_cast<char>('a' + i % 26);
      std::cout.put(c);
      expected += c;
    }
    for (int i = 0; i < 1'000; ++i) {
      const std::string piece = "piece " + std::to_string(i) + "\n";
      std::cout << piece;
      expected += piece;
    }
    const std::string large(200'000, 'L');
    std::cout << large << std::flush;
    expected += large;
    good = std::cout.good();
  }
  interrupter.join();
  const double cpu = cpu_seconds() - cpu_before;
  const std::string got = capture.finish();
  std::size_t at = 0;
  while (at < got.size() && at < expected.size() && got[at] == expected[at]) ++at;
  std::string said = got == expected ? "whole" : "differs at byte " + std::to_string(at) + " of " +
                                                     std::to_string(expected.size()) + " (got " +
                                                     std::to_string(got.size()) + ")";
  said += good ? ", good" : ", failed";
  // Waiting a second on the reader costs no CPU; a writer that tries again and again does.
  said += cpu < 0.5 ? ", waited" : ", spun for " + std::to_string(cpu) + " s of CPU";
  return said;
}

TEST(WholeStandardOutput, ASlowReaderOfANonBlockingPipeGetsEveryByteAndSignalsCutNothing) {
  EXPECT_EQ(in_child([] { return write_through_a_slow_reader(true); }), "whole, good, waited");
}

TEST(WholeStandardOutput, ASlowReaderOfABlockingPipeGetsEveryByteAndSignalsCutNothing) {
  EXPECT_EQ(in_child([] { return write_through_a_slow_reader(false); }), "whole, good, waited");
}

// On a pipe nothing is written until 64 KiB are held or the stream is flushed; a piece of 64
// KiB or more goes out at once. On a terminal each line goes out when it ends.
TEST(WholeStandardOutput, APipeGetsWhole64KiBOrAFlushATerminalEachLine) {
  const std::string said = in_child([]() -> std::string {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
    set_flag(fds[0], O_NONBLOCK);
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[1]);
    std::string out;
    {
      const WholeStandardOutput whole;
      std::cout << "abc\n";
      out += "line held: " + std::to_string(available(fds[0]).size());
      std::cout << std::flush;
      out += ", flushed: " + available(fds[0]);
      std::cout << std::string(65536, 'p');
      out += "; 64 KiB piece: " + std::to_string(available(fds[0]).size());
      for (int i = 0; i < 64; ++i) std::cout << std::string(1024, 's');
      out += "; 64 pieces of 1 KiB: " + std::to_string(available(fds[0]).size());
      std::cout << "0123456789";
      out += ", 10 bytes more: " + std::to_string(available(fds[0]).size());
      std::cout << std::flush;
      out += ", flushed: " + std::to_string(available(fds[0]).size());
      // One byte written: whatever errno out before, it is written once.
      errno = EINTR;
      std::cout << 'y' << std::flush;
      out += "; one byte: " + available(fds[0]);
    }
    int primary = -1;
    int secondary = -1;
    if (::openpty(&primary, &secondary, nullptr, nullptr, nullptr) != 0) return out + "; openpty failed";
    set_flag(primary, O_NONBLOCK);
    ::dup2(secondary, STDOUT_FILENO);
    ::close(secondary);
    {
      const WholeStandardOutput whole;
      std::cout << "abc";
      out += "; terminal, no line end: " + std::to_string(available(primary).size());
      std::cout << "def\n";
      std::string line = available(primary);
      if (line.ends_with("\r\n")) line.replace(line.size() - 2, 2, "|");
      out += ", the line ended: " + line + (std::cout.good() ? "" : " (the stream failed)");
    }
    return out;
  });
  EXPECT_EQ(said,
            "line held: 0, flushed: abc\n; 64 KiB piece: 65536; 64 pieces of 1 KiB: 0, 10 bytes more: 65536, "
            "flushed: 10; one byte: y; terminal, no line end: 0, the line ended: abcdef|");
}

// A reader gone (EPIPE, SIGPIPE ignored as main does) fails the stream at the first write that
// meets it, pieces or one large piece, and the writer does not try again for ever.
TEST(WholeStandardOutput, AReaderGoneFailsTheStreamAtOnce) {
  const std::string said = in_child([]() -> std::string {
    ::signal(SIGPIPE, SIG_IGN);
    std::string out;
    for (const bool pieces : {true, false}) {
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
      ::close(fds[0]);
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[1]);
      const WholeStandardOutput whole;
      if (pieces) {
        for (int i = 0; i < 100 && std::cout.good(); ++i) std::cout << std::string(1000, 'x');
      } else {
        std::cout << std::string(100'000, 'x');
      }
      out += std::string(pieces ? "pieces: " : "; one piece: ") + (std::cout.good() ? "good" : "failed");
      std::cout.clear();
    }
    return out;
  });
  EXPECT_EQ(said, "pieces: failed; one piece: failed");
}

// A write that takes nothing of what it was given (here every write answers 0, by a seccomp
// filter) fails the stream: waiting on it would never end. The child says by its exit status
// (its answer would be written too): 0 failed, 1 good; a loop is killed after 30 s.
TEST(WholeStandardOutput, AWriteThatTakesNothingFailsTheStream) {
  std::fflush(stdout);
  const test::ChildResult r = test::run_in_child(
      []() -> std::string {
        const WholeStandardOutput whole;
        if (!test::refuse_system_calls({SYS_write}, 0)) ::_exit(3);
        errno = EAGAIN;  // what a write of 0 bytes leaves in errno is not its answer
        std::cout << "x" << std::flush;
        ::_exit(std::cout.good() ? 1 : 0);
      },
      std::chrono::seconds(30));
  ASSERT_TRUE(r.finished) << "the write of 0 bytes was tried again for ever";
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << "status " << r.status;
}

// A stop signal (StopSignals) ends a write that waits on a reader that never reads: the stream
// fails at once, as the run must stop.
TEST(WholeStandardOutput, AStopSignalEndsAWriteThatWaits) {
  const std::string said = in_child([]() -> std::string {
    std::string out;
    for (const bool nonblocking : {false, true}) {
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe failed";
      if (nonblocking) set_flag(fds[1], O_NONBLOCK);
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[1]);
      const StopSignals signals;
      const WholeStandardOutput whole;
      // To the writing thread: a signal to the process may be taken by any of its threads.
      const pthread_t writer = ::pthread_self();
      std::thread stopper([writer] {
        std::this_thread::sleep_for(milliseconds(300));
        ::pthread_kill(writer, SIGTERM);
      });
      const auto began = std::chrono::steady_clock::now();
      std::cout << std::string(200'000, 'x') << std::flush;
      const auto waited = std::chrono::steady_clock::now() - began;
      stopper.join();
      out += std::string(out.empty() ? "" : "; ") + (nonblocking ? "non-blocking: " : "blocking: ") +
              (std::cout.good() ? "good" : "failed") +
              (waited < std::chrono::seconds(5) ? ", at once" : ", late");
      std::cout.clear();
      ::close(fds[0]);
    }
    return out;
  });
  EXPECT_EQ(said, "blocking: failed, at once; non-blocking: failed, at once");
}

}  // namespace
}  // namespace hsperfguard::platform
