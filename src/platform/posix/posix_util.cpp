#include "platform/posix/posix_util.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <span>

#include "model/perfdata.hpp"

namespace hsperfguard::platform {

FileKind kind_from_mode(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return FileKind::regular;
    case S_IFDIR: return FileKind::directory;
    case S_IFLNK: return FileKind::symlink;
    case S_IFIFO: return FileKind::fifo;
    case S_IFSOCK: return FileKind::socket;
    case S_IFCHR: return FileKind::char_device;
    case S_IFBLK: return FileKind::block_device;
    default: return FileKind::unknown;
  }
}

InodeFacts to_inode_facts(const struct stat& st) {
  InodeFacts f;
  f.kind = kind_from_mode(st.st_mode);
  f.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
  f.uid = st.st_uid;
  f.gid = st.st_gid;
  f.nlink = static_cast<std::uint64_t>(st.st_nlink);
  f.size = static_cast<std::uint64_t>(st.st_size);
  f.dev = static_cast<std::uint64_t>(st.st_dev);
  f.ino = static_cast<std::uint64_t>(st.st_ino);
  f.mtime = {st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
  f.ctime = {st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
  f.atime = {st.st_atim.tv_sec, st.st_atim.tv_nsec};
  return f;
}

ObservationError make_error(std::string path, std::string op, int err) {
  return {std::move(path), std::move(op), err, std::strerror(err)};
}

bool nss_not_found(int rc) {
  return rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF || rc == EPERM;
}

int open_noatime(int dirfd, const char* name, int flags) {
  int fd = ::openat(dirfd, name, flags | O_NOATIME);
  if (fd < 0 && errno == EPERM) fd = ::openat(dirfd, name, flags);
  return fd;
}

std::optional<std::string> link_target_at(int dirfd, const char* name) {
  std::string target(PATH_MAX, '\0');
  const ssize_t n = ::readlinkat(dirfd, name, target.data(), target.size());
  if (n < 0 || static_cast<std::size_t>(n) >= target.size()) return std::nullopt;
  target.resize(static_cast<std::size_t>(n));
  return target;
}

std::size_t pread_upto(int fd, void* data, std::size_t size, off_t offset, int& err) {
  err = 0;
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(fd, static_cast<char*>(data) + got, size - got, offset + static_cast<off_t>(got));
    if (n == 0) break;  // the end of the file: it shrank while it was read
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

RegionBytes read_region_bytes(int fd, std::size_t cap, std::vector<std::byte>& buffer) {
  RegionBytes out;
  // The buffer is the caller's, kept from file to file: it grows, never shrinks.
  const std::size_t first = std::min(cap, perfdata::kRegionFirstRead);
  buffer.resize(std::max(buffer.size(), first));
  std::size_t got = pread_upto(fd, buffer.data(), first, 0, out.error);
  out.bytes = std::min(got, perfdata::kRegionHeadBytes);
  if (out.error == 0) {
    const std::size_t want = perfdata::region_bytes_to_parse(std::span(buffer.data(), got), cap);
    const std::size_t more = want - std::min(want, got);  // none when the first read holds it
    buffer.resize(std::max(buffer.size(), got + more));
    got += pread_upto(fd, buffer.data() + got, more, static_cast<off_t>(got), out.error);
    out.bytes = std::min(got, want);
  }
  return out;
}

}  // namespace hsperfguard::platform
