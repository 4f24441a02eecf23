#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "platform/host.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/signals.hpp"

namespace hsperfguard::platform {

HostInfo observe_host() {
  HostInfo host;
  host.os = "linux";
  struct utsname u {};
  if (::uname(&u) == 0) {
    host.name = u.nodename;
    host.kernel = u.release;
  }
  host.euid = ::geteuid();
  return host;
}

std::int64_t now_epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }
bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::optional<std::size_t> stdout_terminal_columns() {
  struct winsize ws {};
  if (::isatty(STDOUT_FILENO) != 1 || ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) {
    return std::nullopt;
  }
  return ws.ws_col;
}

namespace {

// std::cout's buffer for the run: what host.hpp says of WholeStandardOutput. The stream itself
// holds nothing (no put area): every character and piece comes through overflow or xsputn, which
// take a lock, since std::cerr is tied to std::cout and flushes it from whichever thread writes
// an error.
class WholeOutputBuffer : public std::streambuf {
 public:
  WholeOutputBuffer() : by_line_(::isatty(STDOUT_FILENO) == 1) { held_.reserve(kCapacity); }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    return put(std::string_view(&ch, 1)) ? c : traits_type::eof();
  }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    return put(std::string_view(s, static_cast<std::size_t>(n))) ? n : 0;
  }

  int sync() override {
    const std::lock_guard<std::mutex> lock(mutex_);
    return drain() == 0 ? 0 : -1;
  }

 private:
  static constexpr std::size_t kCapacity = 65536;

  bool put(std::string_view text) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (held_.size() + text.size() > kCapacity && drain() != 0) return false;
    if (text.size() >= kCapacity) return write_whole(text) == 0;  // a large piece goes straight out
    held_.append(text);
    return !(by_line_ && text.find('\n') != std::string_view::npos) || drain() == 0;
  }

  // Writes what is held (the lock taken); 0, or the errno of the write that failed.
  int drain() {
    const int err = write_whole(held_);
    held_.clear();
    return err;
  }

  // Every byte of `text`, whatever O_NONBLOCK says: 0, or the errno of the write that failed
  // (EINTR when a stop signal ended the wait: once a stop is asked, no write waits).
  static int write_whole(std::string_view text) {
    while (!text.empty()) {
      const ssize_t n = ::write(STDOUT_FILENO, text.data(), text.size());
      if (n > 0) {
        // Cut short, the write waited for the reader; a stop signal that came meanwhile (it
        // ends the call with what was taken) or before ends the wait too.
        const bool whole = static_cast<std::size_t>(n) == text.size();
        text.remove_prefix(static_cast<std::size_t>(n));
        if (!whole && stop_signal_arrived()) return EINTR;
        continue;
      }
      if (n == 0) return EIO;  // nothing taken of a non-empty write: never wait on it for ever
      if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return errno;
      if (stop_signal_arrived()) return EINTR;
      if (errno == EINTR) continue;
      struct pollfd ready {STDOUT_FILENO, POLLOUT, 0};
      if (::poll(&ready, 1, -1) < 0 && errno != EINTR) return errno;  // EINTR: the loop asks again
    }
    return 0;
  }

  const bool by_line_;
  std::mutex mutex_;
  std::string held_;
};

}  // namespace

struct WholeStandardOutput::Impl {
  WholeOutputBuffer buffer;
  std::streambuf* previous = nullptr;
};

WholeStandardOutput::WholeStandardOutput() : impl_(std::make_unique<Impl>()) {
  std::cout.flush();
  impl_->previous = std::cout.rdbuf(&impl_->buffer);
}

WholeStandardOutput::~WholeStandardOutput() {
  std::cout.flush();
  std::cout.rdbuf(impl_->previous);
}

std::optional<std::string> read_config_file(const std::string& path, ObservationError* error) {
  // The one path walk (a link of root's or ours is followed, the last component too), the
  // file judged by its type before it is opened.
  // A policy decides what an audit calls clean: it is trusted as the lock file is. Every
  // directory on the way is root's or ours, and the file is root's or ours and nobody else's
  // to write (a 0666 or a user's policy, or one in a user's directory, silently lowered every
  // severity, and her 0777 namespace audited clean).
  ObservationError failed;
  const std::optional<WalkedPath> held =
      walk_path(path, WalkRules{.follow_last = true, .trusted_directories = true}, failed);
  UniqueFd fd;
  const uid_t euid = ::geteuid();
  if (held && S_ISREG(held->st.st_mode) && held->st.st_uid != 0 && held->st.st_uid != euid) {
    failed = ObservationError{path, "fstat", 0,
                              "owned by uid " + std::to_string(held->st.st_uid) +
                                  ", neither root nor this process's user: not trusted"};
  } else if (held && S_ISREG(held->st.st_mode) && (held->st.st_mode & 0022) != 0) {
    failed = ObservationError{path, "fstat", 0, "writable by its group or others: not trusted"};
  } else if (held && S_ISREG(held->st.st_mode) && held->st.st_size <= off_t{16} * 1024 * 1024) {
    fd = reopen_held(held->fd.get(), held->st, O_RDONLY | O_NONBLOCK | O_NOCTTY, path, failed);
  } else if (held) {
    failed = ObservationError{path, "fstat", 0, "not a regular file of at most 16 MiB"};
  }
  if (!fd.valid()) {
    if (error) *error = std::move(failed);
    return std::nullopt;
  }
  std::string content;
  std::vector<char> buf(65536);
  while (true) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (error) *error = make_error(path, "read", errno);
      return std::nullopt;
    }
    if (n == 0) break;
    content.append(buf.data(), static_cast<std::size_t>(n));
  }
  return content;
}

std::optional<std::string> default_policy_file() { return std::string("/etc/hsperfguard/policy.json"); }

bool config_file_absent(const ObservationError& error) { return error.code == ENOENT; }

}  // namespace hsperfguard::platform
