// One statx for the tree: observation, the reaper and their tests read an entry's inode, its
// mount and its inode flags through here.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>

#include "model/facts.hpp"

namespace hsperfguard::platform {

// The basic stats and the mount id (Linux 5.8+; absent before).
inline constexpr unsigned kStatxMask = STATX_BASIC_STATS | STATX_MNT_ID;

// An inode as statx saw it, with the mount it sits on and the inode flags statx reports.
struct Stat {
  InodeFacts inode;
  std::optional<std::uint64_t> mount_id;
  std::optional<std::uint32_t> inode_flags;  // when the file system reports attributes
};

InodeFacts from_statx(const struct statx& s);
Stat to_stat(const struct statx& s);

// statx relative to dirfd ("" with AT_EMPTY_PATH for the fd itself) with kStatxMask.
// Returns errno, or 0.
int stat_at(int dirfd, const char* name, int flags, Stat& out);

// The mount id of `name` in `dirfd` ("" with AT_EMPTY_PATH: dirfd itself; a final link is not
// followed) as name_to_handle_at gives it: the id statx gives since Linux 5.8, there since
// 2.6.39 on every file system that exports handles (tmpfs, ext4, xfs, btrfs; not every FUSE
// or network one). None when the call fails (a seccomp filter may refuse it).
std::optional<std::uint64_t> handle_mount_id(int dirfd, const char* name, int flags);

}  // namespace hsperfguard::platform
