#include "platform/posix/stat_posix.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/sysmacros.h>

#include <cerrno>

#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {
namespace {

// statx reports the security-relevant inode flags as attributes, with the same bit values
// as FS_*_FL, so for backing files they cost no FS_IOC_GETFLAGS ioctl (one syscall per
// file matters at 100,000 files). A file's inode_flags are therefore these bits only
// (append, immutable, nodump, compressed, encrypted, verity) on file systems that report
// attributes; flags statx cannot express (noatime, sync, ...) are not seen for files.
// STATX_ATTR_DAX is left out: its value differs from FS_DAX_FL.
constexpr std::uint64_t kStatxInodeFlags = STATX_ATTR_COMPRESSED | STATX_ATTR_IMMUTABLE |
                                           STATX_ATTR_APPEND | STATX_ATTR_NODUMP |
                                           STATX_ATTR_ENCRYPTED | STATX_ATTR_VERITY;
static_assert(STATX_ATTR_COMPRESSED == FS_COMPR_FL && STATX_ATTR_IMMUTABLE == FS_IMMUTABLE_FL &&
              STATX_ATTR_APPEND == FS_APPEND_FL && STATX_ATTR_NODUMP == FS_NODUMP_FL &&
              STATX_ATTR_ENCRYPTED == FS_ENCRYPT_FL && STATX_ATTR_VERITY == FS_VERITY_FL);

}  // namespace

InodeFacts from_statx(const struct statx& s) {
  InodeFacts f;
  f.kind = kind_from_mode(s.stx_mode);
  f.mode = static_cast<std::uint32_t>(s.stx_mode & 07777);
  f.uid = s.stx_uid;
  f.gid = s.stx_gid;
  f.nlink = s.stx_nlink;
  f.size = s.stx_size;
  f.dev = static_cast<std::uint64_t>(makedev(s.stx_dev_major, s.stx_dev_minor));
  f.ino = s.stx_ino;
  f.mtime = {s.stx_mtime.tv_sec, s.stx_mtime.tv_nsec};
  f.ctime = {s.stx_ctime.tv_sec, s.stx_ctime.tv_nsec};
  f.atime = {s.stx_atime.tv_sec, s.stx_atime.tv_nsec};
  return f;
}

Stat to_stat(const struct statx& stx) {
  Stat out;
  out.inode = from_statx(stx);
  if ((stx.stx_mask & STATX_MNT_ID) != 0) out.mount_id = stx.stx_mnt_id;
  if ((stx.stx_attributes_mask & kStatxInodeFlags) != 0) {
    out.inode_flags =
        static_cast<std::uint32_t>(stx.stx_attributes & stx.stx_attributes_mask & kStatxInodeFlags);
  }
  return out;
}

int stat_at(int dirfd, const char* name, int flags, Stat& out) {
  struct statx stx {};
  if (::statx(dirfd, name, flags, kStatxMask, &stx) != 0) return errno;
  out = to_stat(stx);
  return 0;
}

std::optional<std::uint64_t> handle_mount_id(int dirfd, const char* name, int flags) {
  // No room for the handle itself: the kernel then answers EOVERFLOW and gives the mount id
  // all the same, which is all that is wanted here (a file system that exports no handles
  // answers EOPNOTSUPP, and gives none).
  struct file_handle header {};
  header.handle_bytes = 0;
  int mount_id = -1;
  if (::name_to_handle_at(dirfd, name, &header, &mount_id, flags & AT_EMPTY_PATH) == 0 ||
      errno == EOVERFLOW) {
    return static_cast<std::uint64_t>(mount_id);
  }
  return std::nullopt;
}

}  // namespace hsperfguard::platform
