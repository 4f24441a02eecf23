#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <string_view>
#include <vector>

#include "platform/host.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"

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
