// File-system facts for an open directory: type, locality, ACL support, mount id, and the
// per-inode flags (FS_IOC_GETFLAGS) that say whether new files there are compressed.
//
// Locality is a plain lookup on statfs f_type, decided here so that rules see a fact, not
// a magic number. `network` means "other machines or an unprivileged user-space server can
// change what we read": NFS, CIFS/SMB (all dialects), FUSE (a user-space server, so never
// trusted, virtiofs included), 9p, Ceph, AFS, Coda, NCP, Lustre, GPFS, OrangeFS, and the
// shared-disk cluster file systems GFS2 and OCFS2. Anything not in the table is reported
// as "unknown" with its magic and network = false.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::platform {

struct FsTypeInfo {
  std::string_view name;
  bool network = false;
};

// Pure: the table.
FsTypeInfo fs_type_from_magic(std::uint64_t magic);

// statfs, ACL probe, statx mount id; `inode_flags` (already read from the same fd, if the
// file system has them) gives `compressed` from FS_COMPR_FL.
VolumeFacts observe_volume(int dir_fd, std::optional<std::uint32_t> inode_flags,
                           const std::string& path, std::vector<ObservationError>& errors);

// FS_IOC_GETFLAGS on an fd opened for reading (not O_PATH). nullopt without an error where
// the file system has no such flags (ENOTTY, EINVAL, EOPNOTSUPP, ENOSYS).
std::optional<std::uint32_t> read_inode_flags(int fd, const std::string& path,
                                              std::vector<ObservationError>& errors);

// statx(STATX_MNT_ID) of an fd, where the kernel reports it (Linux 5.8+).
std::optional<std::uint64_t> mount_id_of(int fd);

}  // namespace hsperfguard::platform
