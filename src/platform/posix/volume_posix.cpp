#include "platform/posix/volume_posix.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>

#include <array>
#include <cerrno>

#include "platform/posix/acl_posix.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {
namespace {

struct FsTypeRow {
  std::uint64_t magic;
  FsTypeInfo info;
};

// statfs f_type values (linux/magic.h, and the out-of-tree file systems' own headers).
// ext2, ext3 and ext4 share one magic and cannot be told apart by statfs.
constexpr std::array kFsTypes = {
    // local
    FsTypeRow{0x01021994, {"tmpfs", false}},
    FsTypeRow{0x858458f6, {"ramfs", false}},
    FsTypeRow{0xEF53, {"ext2/ext3/ext4", false}},
    FsTypeRow{0x58465342, {"xfs", false}},
    FsTypeRow{0x9123683E, {"btrfs", false}},
    FsTypeRow{0x794c7630, {"overlayfs", false}},
    FsTypeRow{0x2fc12fc1, {"zfs", false}},
    FsTypeRow{0xF2F52010, {"f2fs", false}},
    FsTypeRow{0xca451a4e, {"bcachefs", false}},
    FsTypeRow{0x52654973, {"reiserfs", false}},
    FsTypeRow{0x3153464a, {"jfs", false}},
    FsTypeRow{0x3434, {"nilfs2", false}},
    FsTypeRow{0x4d44, {"vfat", false}},
    FsTypeRow{0x2011BAB0, {"exfat", false}},
    FsTypeRow{0x5346544e, {"ntfs", false}},
    FsTypeRow{0x73717368, {"squashfs", false}},
    FsTypeRow{0xE0F5E1E2, {"erofs", false}},
    FsTypeRow{0x9660, {"iso9660", false}},
    FsTypeRow{0x28cd3d45, {"cramfs", false}},
    FsTypeRow{0xf15f, {"ecryptfs", false}},
    FsTypeRow{0x72b6, {"jffs2", false}},
    FsTypeRow{0x24051905, {"ubifs", false}},
    FsTypeRow{0x958458f6, {"hugetlbfs", false}},
    FsTypeRow{0x9fa0, {"proc", false}},
    FsTypeRow{0x62656572, {"sysfs", false}},
    FsTypeRow{0x1cd1, {"devpts", false}},
    // network, cluster, or served from user space
    FsTypeRow{0x6969, {"nfs", true}},
    FsTypeRow{0xFF534D42, {"cifs", true}},
    FsTypeRow{0xFE534D42, {"smb2", true}},
    FsTypeRow{0x517B, {"smb", true}},
    FsTypeRow{0x65735546, {"fuse", true}},
    FsTypeRow{0x01021997, {"9p", true}},
    FsTypeRow{0x00c36400, {"ceph", true}},
    FsTypeRow{0x5346414F, {"afs", true}},
    FsTypeRow{0x6B414653, {"afs", true}},
    FsTypeRow{0x73757245, {"coda", true}},
    FsTypeRow{0x564c, {"ncp", true}},
    FsTypeRow{0x0BD00BD0, {"lustre", true}},
    FsTypeRow{0x47504653, {"gpfs", true}},
    FsTypeRow{0x20030528, {"orangefs", true}},
    FsTypeRow{0x01161970, {"gfs2", true}},
    FsTypeRow{0x7461636f, {"ocfs2", true}},
};

}  // namespace

FsTypeInfo fs_type_from_magic(std::uint64_t magic) {
  for (const auto& row : kFsTypes) {
    if (row.magic == magic) return row.info;
  }
  return {"unknown", false};
}

std::optional<std::uint32_t> read_inode_flags(int fd, const std::string& path,
                                              std::vector<ObservationError>& errors) {
  // The kernel reads and writes an int here, whatever the ioctl number says.
  int flags = 0;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) return static_cast<std::uint32_t>(flags);
  const int err = errno;
  if (err != ENOTTY && err != EINVAL && err != EOPNOTSUPP && err != ENOSYS) {
    errors.push_back(make_error(path, "ioctl(FS_IOC_GETFLAGS)", err));
  }
  return std::nullopt;
}

std::optional<std::uint64_t> mount_id_of(int fd) {
  struct statx stx {};
  if (::statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) != 0)
    return std::nullopt;
  if ((stx.stx_mask & STATX_MNT_ID) == 0) return std::nullopt;
  return stx.stx_mnt_id;
}

VolumeFacts observe_volume(int dir_fd, std::optional<std::uint32_t> inode_flags,
                           const std::string& path, std::vector<ObservationError>& errors) {
  VolumeFacts v;
  struct statfs sfs {};
  if (::fstatfs(dir_fd, &sfs) == 0) {
    v.fs_magic = static_cast<std::uint64_t>(static_cast<std::uint32_t>(sfs.f_type));
    const FsTypeInfo info = fs_type_from_magic(v.fs_magic);
    v.fs_type = std::string(info.name);
    v.network = info.network;
    v.read_only = (sfs.f_flags & ST_RDONLY) != 0;
    const auto block = static_cast<std::uint64_t>(sfs.f_bsize);
    v.free_bytes = static_cast<std::uint64_t>(sfs.f_bavail) * block;
    v.free_bytes_root = static_cast<std::uint64_t>(sfs.f_bfree) * block;
    // A file system without an inode count says 0 files in all (btrfs, some FUSE).
    if (sfs.f_files > 0) v.free_inodes = static_cast<std::uint64_t>(sfs.f_ffree);
  } else {
    errors.push_back(make_error(path, "fstatfs", errno));
    v.fs_type = "unknown";
  }
  v.acl_support = probe_acl_support(dir_fd, path, errors);
  v.mount_id = mount_id_of(dir_fd);
  if (inode_flags) v.compressed = (*inode_flags & FS_COMPR_FL) != 0;
  return v;
}

}  // namespace hsperfguard::platform
