// The one getdents64 loop: the entries of a directory we hold open, a buffer at a time, on our
// own fd (no DIR*, no reopening by name, so the listing is of the directory that was checked).
// Observation lists namespaces and temp dirs with it, the process scans list /proc.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace hsperfguard::platform {

struct Dirent {
  std::string_view name;   // valid until the next call of next()
  unsigned char type = 0;  // DT_* as getdents reports it (DT_UNKNOWN where the fs does not say)
};

class DirentReader {
 public:
  // Reads `dirfd` from its current offset; `buffer` is the getdents64 buffer (64 KiB is
  // allocated on first use when it is empty) and may be reused across readers.
  DirentReader(int dirfd, std::vector<char>& buffer) : fd_(dirfd), buffer_(buffer) {}

  // Starts again from the first entry (lseek to 0). Returns errno or 0.
  int rewind();
  // The next entry, "." and ".." left out; nullopt at the end or after an error (error()
  // then holds its errno; EINTR is retried).
  std::optional<Dirent> next();
  int error() const { return error_; }

 private:
  int fd_;
  std::vector<char>& buffer_;
  std::size_t at_ = 0, filled_ = 0;
  bool ended_ = false;
  int error_ = 0;
};

}  // namespace hsperfguard::platform
