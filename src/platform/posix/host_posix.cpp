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

namespace {

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

std::optional<ObservationError> write_file_atomically(const std::string& path,
                                                      const std::string& content,
                                                      std::uint32_t mode) {
  return write_file_atomically_streamed(
      path, [&](const ContentSink& write) { write(content); }, mode);
}

std::optional<ObservationError> write_file_atomically_streamed(
    const std::string& path, const std::function<void(const ContentSink&)>& produce,
    std::uint32_t mode) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  UniqueFd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dirfd.valid()) return make_error(dir, "open", errno);
  // A hidden temp name in the same directory, created exclusively, never following links.
  std::string temp;
  UniqueFd fd;
  for (int attempt = 0; attempt < 100 && !fd.valid(); ++attempt) {
    temp = "." + base + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
    fd.reset(::openat(dirfd.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     static_cast<mode_t>(mode)));
    if (!fd.valid() && errno != EEXIST) return make_error(dir + "/" + temp, "openat", errno);
  }
  if (!fd.valid()) return make_error(dir + "/" + temp, "openat", EEXIST);
  // fchmod: the umask must not decide who may read the report.
  bool written = ::fchmod(fd.get(), static_cast<mode_t>(mode)) == 0;
  int write_errno = written ? 0 : errno;
  if (written) {
    // Writeback is started every few MiB as the report is written (it can be 100 MB), so
    // that the fsync below waits for the last stretch only, not for all of it.
    constexpr off_t kWritebackStep = 8 << 20;
    off_t total = 0;
    off_t flushed = 0;
    produce([&](std::string_view piece) {
      if (!written) return;
      written = write_all(fd.get(), piece);
      if (!written) {
        write_errno = errno;
        return;
      }
      total += static_cast<off_t>(piece.size());
      if (total - flushed >= kWritebackStep) {
        ::sync_file_range(fd.get(), flushed, total - flushed, SYNC_FILE_RANGE_WRITE);  // a hint
        flushed = total;
      }
    });
  }
  if (!written || ::fsync(fd.get()) != 0) {
    const int err = written ? errno : write_errno;
    ::unlinkat(dirfd.get(), temp.c_str(), 0);
    return make_error(path, "write", err);
  }
  fd.reset();
  if (::renameat(dirfd.get(), temp.c_str(), dirfd.get(), base.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dirfd.get(), temp.c_str(), 0);
    return make_error(path, "renameat", err);
  }
  return std::nullopt;
}

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
