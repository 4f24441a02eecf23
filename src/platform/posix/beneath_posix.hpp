// Opening a path inside a foreign system root (`--root DIR`, /proc/<pid>/root) so that
// nothing in that root (an absolute symlink, a ".." chain, a magic link) can lead the
// opener to the host's files.
//
// Two methods, chosen at run time:
// - openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS): the kernel resolves the path as if
//   root_fd were "/" (absolute symlinks and ".." stay inside it, /proc magic links are
//   refused). Symlinks inside the root are followed the way that system would see them.
//   RESOLVE_NO_XDEV is not used: a container's /tmp is usually its own tmpfs mount.
// - a component-by-component walk (kernels before 5.6, or openat2 denied by a seccomp
//   filter): every intermediate component is opened O_PATH|O_DIRECTORY|O_NOFOLLOW, the last
//   one with the caller's flags plus O_NOFOLLOW. It is stricter than openat2: any symlink on
//   the way fails with ELOOP instead of being resolved. ".." pops the walk's own stack of
//   directory fds and stops at the root, so it cannot escape even if a directory is moved.
#pragma once

#include <linux/openat2.h>

#include <cstdint>
#include <string_view>

#include "model/facts.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {

enum class BeneathMethod {
  automatic,  // openat2 when the kernel has it, the walk otherwise
  openat2,    // openat2 only (fails with ENOSYS where the kernel lacks it)
  walk,       // the fallback walk, also where openat2 exists (tests force it)
};

// Opens `relative_path` beneath `root_fd` with `flags` (O_CLOEXEC is always added). A
// leading '/' is allowed and means the root. On failure returns an invalid fd and, when
// `err` is given, fills it: path = relative_path, op = "openat2" or "openat", code = errno.
// The walk reports a refused symlink as ELOOP.
UniqueFd open_beneath(int root_fd, std::string_view relative_path, int flags, ObservationError* err,
                      BeneathMethod method = BeneathMethod::automatic);

// Whether openat2 with RESOLVE_IN_ROOT works here (probed once, then cached).
bool openat2_available();

// How open_entry_on_this_mount resolves: no link of any kind, no mount crossed, nothing
// outside the directory (for batched opens that make the same call).
inline constexpr std::uint64_t kEntryOnThisMount =
    RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

// Opens `name`, one entry of the directory `dirfd`, with `flags` (O_CLOEXEC added) without
// following a link of any kind and without crossing onto another mount: a symlink fails with
// ELOOP, a file or directory something is mounted on (a user's FUSE server, a bind mount)
// with EXDEV, before anything of the mount is asked. -1 and errno on failure; ENOSYS where
// openat2 is not available (see openat2_available).
int open_entry_on_this_mount(int dirfd, const char* name, int flags);

}  // namespace hsperfguard::platform
