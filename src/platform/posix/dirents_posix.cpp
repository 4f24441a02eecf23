#include "platform/posix/dirents_posix.hpp"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>

namespace hsperfguard::platform {

int DirentReader::rewind() {
  at_ = filled_ = 0;
  ended_ = false;
  error_ = 0;
  if (::lseek(fd_, 0, SEEK_SET) < 0) {
    ended_ = true;
    error_ = errno;
  }
  return error_;
}

std::optional<Dirent> DirentReader::next() {
  for (;;) {
    if (at_ >= filled_) {
      if (ended_) return std::nullopt;
      if (buffer_.empty()) buffer_.resize(std::size_t{64} * 1024);
      const ssize_t n = ::getdents64(fd_, buffer_.data(), buffer_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ended_ = true;
        if (n < 0) error_ = errno;
        return std::nullopt;
      }
      at_ = 0;
      filled_ = static_cast<std::size_t>(n);
    }
    const auto* d = reinterpret_cast<const struct dirent64*>(buffer_.data() + at_);
    at_ += d->d_reclen;
    const std::string_view name(d->d_name);
    if (name == "." || name == "..") continue;
    return Dirent{name, d->d_type};
  }
}

}  // namespace hsperfguard::platform
