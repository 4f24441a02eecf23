// Small POSIX helpers shared by the observation and action code: an owning fd, and the
// conversion of struct stat into neutral facts.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// Owns one file descriptor; closes it exactly once.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

FileKind kind_from_mode(mode_t mode);
InodeFacts to_inode_facts(const struct stat& st);
ObservationError make_error(std::string path, std::string op, int err);

// Whether a getpwnam_r/getpwuid_r error code means "no such user" (getpwnam(3): 0, ENOENT,
// ESRCH, EBADF and EPERM all do); any other code is a failure of the name service itself.
bool nss_not_found(int rc);

// Opens read-only with O_NOATIME when the caller may (owner or CAP_FOWNER), without
// otherwise: the audit must not change what it looks at, even access times.
int open_noatime(int dirfd, const char* name, int flags);

// What the symbolic link `name` of `dirfd` points at (readlinkat, never followed); nullopt
// when it cannot be read or is longer than PATH_MAX. The evidence of a planted link.
std::optional<std::string> link_target_at(int dirfd, const char* name);

// Reads `size` bytes at `offset` of `fd` into `data`, with as many pread calls as it takes:
// an interrupted one (EINTR) is made again, and the end of the file (a file that shrank while
// it was read) ends the reading. Returns how many bytes were read; `err` is the errno of a
// failed pread (the bytes before it are read), else 0. The one such loop of the tool's reads.
std::size_t pread_upto(int fd, void* data, std::size_t size, off_t offset, int& err);

// The bytes of a backing file to parse, read from `fd` into `buffer` (grown as needed) as
// perfdata::region_bytes_to_parse says: a first read of kRegionFirstRead bytes (never more
// than `cap`), then on to `used` when the prologue says more are used. `bytes`: how many of
// `buffer` to parse; `error`: the errno of a failed read (the first kRegionHeadBytes read
// before it are still parsed). The audit's observation and the reaper's late reads share it.
struct RegionBytes {
  std::size_t bytes = 0;
  int error = 0;
};
RegionBytes read_region_bytes(int fd, std::size_t cap, std::vector<std::byte>& buffer);

}  // namespace hsperfguard::platform
