#include "platform/posix/posix_util.hpp"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

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

int open_noatime(int dirfd, const char* name, int flags) {
  int fd = ::openat(dirfd, name, flags | O_NOATIME);
  if (fd < 0 && errno == EPERM) fd = ::openat(dirfd, name, flags);
  return fd;
}

}  // namespace hsperfguard::platform
