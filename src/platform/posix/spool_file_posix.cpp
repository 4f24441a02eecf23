// The spool file on POSIX (platform/spool_file.hpp): O_TMPFILE where the file system has it,
// else mkstemp and an unlink at once; written through a buffer, read back with pread.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "platform/posix/posix_util.hpp"
#include "platform/spool_file.hpp"

namespace hsperfguard::platform {

namespace {
constexpr std::size_t kBuffer = std::size_t{64} * 1024;
}  // namespace

struct SpoolFile::Impl {
  int fd = -1;
  std::string path;  // its directory, for messages
  std::string buffer;
  std::size_t size = 0;  // appended, buffered or not
  std::size_t written = 0;
  std::optional<ObservationError> error;

  ~Impl() {
    if (fd >= 0) ::close(fd);
  }

  bool flush() {
    std::size_t done = 0;
    while (!error && done < buffer.size()) {
      const ssize_t n = ::pwrite(fd, buffer.data() + done, buffer.size() - done, static_cast<off_t>(written + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error = make_error(path, "write", n < 0 ? errno : EIO);
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    written += done;
    buffer.clear();
    return !error;
  }
};

std::optional<SpoolFile> SpoolFile::create(const std::vector<std::string>& dirs, ObservationError& error) {
  for (const std::string& dir : dirs) {
    int fd = -1;
#ifdef O_TMPFILE
    fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) {
      // No O_TMPFILE here: a private name, unlinked before anything is written.
      std::string name = dir + "/.hsperfguard-spool-XXXXXX";
      fd = ::mkostemp(name.data(), O_CLOEXEC);
      if (fd >= 0 && ::unlink(name.c_str()) != 0) {
        ::close(fd);
        fd = -1;
      }
    }
    if (fd < 0) {
      error = make_error(dir, "open", errno);
      continue;
    }
    auto impl = std::make_unique<Impl>();
    impl->fd = fd;
    impl->path = dir;
    impl->buffer.reserve(kBuffer);
    return SpoolFile(std::move(impl));
  }
  return std::nullopt;
}

SpoolFile::SpoolFile(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SpoolFile::SpoolFile(SpoolFile&&) noexcept = default;
SpoolFile& SpoolFile::operator=(SpoolFile&&) noexcept = default;
SpoolFile::~SpoolFile() = default;

void SpoolFile::append(std::string_view text) {
  if (impl_->error) return;
  impl_->size += text.size();
  if (impl_->buffer.size() + text.size() > kBuffer && !impl_->flush()) return;
  if (text.size() >= kBuffer) {
    impl_->buffer.assign(text);
    impl_->flush();
    return;
  }
  impl_->buffer.append(text);
}

std::size_t SpoolFile::size() const { return impl_->size; }

void SpoolFile::copy(std::size_t begin, std::size_t end, const std::function<void(std::string_view)>& write) {
  if (!impl_->flush()) return;
  std::string block(kBuffer, '\0');
  end = std::min(end, impl_->written);
  while (begin < end) {
    const ssize_t n = ::pread(impl_->fd, block.data(), std::min(kBuffer, end - begin), static_cast<off_t>(begin));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      impl_->error = make_error(impl_->path, "read", n < 0 ? errno : EIO);
      return;
    }
    write(std::string_view(block.data(), static_cast<std::size_t>(n)));
    begin += static_cast<std::size_t>(n);
  }
}

const std::optional<ObservationError>& SpoolFile::error() const { return impl_->error; }

}  // namespace hsperfguard::platform
