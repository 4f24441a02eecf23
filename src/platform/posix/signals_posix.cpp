// Stop signals on POSIX: SIGINT, SIGTERM and SIGHUP (a cron job's terminal going away).
//
// The handler is installed with sigaction and without SA_RESTART: a system call that waits
// (an open of a FIFO, a flock, a poll on a slow reader) returns EINTR when a stop signal
// arrives, and the loop around it sees the flag, instead of the call being restarted and the
// run going on as if nothing had been asked.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>

#include "platform/signals.hpp"

namespace hsperfguard::platform {
namespace {

std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void request_stop(int) { g_stop_requested.store(true); }

constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, kSignals.size()> g_previous{};
std::array<bool, kSignals.size()> g_installed{};

}  // namespace

std::span<const int> stop_signal_numbers() { return kSignals; }

StopSignals::StopSignals() {
  g_stop_requested.store(false);
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: see above
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    g_installed[i] = ::sigaction(kSignals[i], &action, &g_previous[i]) == 0;
  }
}

StopSignals::~StopSignals() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (g_installed[i]) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
}

const std::atomic<bool>& StopSignals::requested() const { return g_stop_requested; }

bool stop_signal_arrived() { return g_stop_requested.load(); }

int hold_standard_streams() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;  // open (or not known closed)
    // The lowest free number: `fd`, the streams below it being open by now.
    const int got = ::open("/", O_PATH | O_DIRECTORY);  // not O_CLOEXEC: it stands for a stream
    if (got == -1) return errno;
    if (got != fd) ::close(got);  // `fd` was taken after all (between the two calls): nothing held
  }
  return 0;
}

// signal() fails only for an invalid signal or disposition: nothing to check here.
void ignore_broken_pipes() { static_cast<void>(::signal(SIGPIPE, SIG_IGN)); }

bool stdout_reader_gone() {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return false;
  // A pipe's write end polls POLLERR once its last reader is closed; a socket's, POLLHUP too.
  struct pollfd fd {STDOUT_FILENO, POLLOUT, 0};
  if (::poll(&fd, 1, 0) != 1) return false;
  return (fd.revents & (POLLERR | POLLHUP)) != 0;
}

}  // namespace hsperfguard::platform
