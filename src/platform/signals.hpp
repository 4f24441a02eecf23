// Stop requests while a long command runs (reap): the operator's Ctrl+C, the service
// manager's termination. The signal numbers are the platform's:
// POSIX (platform/posix/signals_posix.cpp) SIGINT, SIGTERM, SIGHUP;
// Windows (platform/windows/signals_windows.cpp) SIGINT (Ctrl+C), SIGBREAK (Ctrl+Break),
// SIGTERM (raised by the C runtime only; Windows has no SIGHUP).
#pragma once

#include <atomic>
#include <span>

namespace hsperfguard::platform {

// While an object lives, the platform's stop signals set one flag instead of ending the
// process, so that the command stops between two actions and reports what it did. The
// flag is cleared when the object is made; the previous handlers are restored when it is
// destroyed. One object at a time.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Set by a stop signal (from the handler: lock-free, async-signal-safe).
  const std::atomic<bool>& requested() const;
};

// The flag a StopSignals reads: whether a stop signal arrived since the last one was made
// (false before any). For what waits outside a command's own loops, such as standard
// output's writer (host.hpp, WholeStandardOutput).
bool stop_signal_arrived();

// A reader that closes our standard output or error (`| head`, a log shipper that died) makes
// writes fail with EPIPE instead of ending the process with SIGPIPE mid-run (exit 141, which
// no exit code of the tool means): the command finishes what it does, and main says that its
// output was cut (exit 3). Called once, first thing in main. Windows has no SIGPIPE.
void ignore_broken_pipes();

// A standard stream (0, 1, 2) that was closed when the process started is given a stand-in,
// an O_PATH descriptor of "/" that can be neither read nor written, so that its number stays
// taken: otherwise the first file the tool opens gets it, and what the tool prints goes into
// that file (seen: with standard output closed, a reap's dry-run plan was written into the
// reap's own spool file and the run exited 0). A write to the stand-in fails as a write to a
// closed stream did (EBADF), so such a run still says its output failed. As OpenSSH's
// sanitise_stdfd and glibc for set-user-ID programs do. 0, or the errno of the open that
// failed (the run must then not go on). Called once, first thing in main. Windows: 0 (its
// files are handles, not the lowest free number).
int hold_standard_streams();

// Whether standard output is a pipe or socket whose reader has gone away (`| head` that had
// its lines, a pager quit): what failed to be written was not wanted, unlike a full disk or
// an I/O error. POSIX asks poll() for POLLERR on the write end; Windows answers false (its
// failed writes say so as any other error).
bool stdout_reader_gone();

// The platform's stop signals. POSIX installs the handler without SA_RESTART, so that a call
// that waits returns when a stop is asked (platform/posix/signals_posix.cpp).
std::span<const int> stop_signal_numbers();

}  // namespace hsperfguard::platform
