#include <fcntl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <string_view>
#include <vector>

#include "platform/host.hpp"
#include "platform/posix/posix_util.hpp"

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

std::optional<std::string> read_config_file(const std::string& path, ObservationError* error) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    if (error) *error = make_error(path, "open", errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode) || st.st_size > 16 * 1024 * 1024) {
    if (error) *error = ObservationError{path, "fstat", 0, "not a regular file of at most 16 MiB"};
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

}  // namespace hsperfguard::platform
