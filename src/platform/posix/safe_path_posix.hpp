// The directory that will hold a file the tool writes (a report, the metrics, the lock, the
// journal), reached without letting another user redirect it.
//
// A path given on the command line is walked from "/" (or the working directory) one
// component at a time with O_PATH | O_NOFOLLOW, so that no component is resolved by the
// kernel on our behalf. A symbolic link is followed only when the policy allows it and the
// link belongs to root or to us (a link another user planted in a sticky /tmp never is), and
// the directory reached must belong to root or to us. The caller then works relative to the
// returned fd: the name it creates, replaces or opens is the last component, never re-resolved.
#pragma once

#include <sys/stat.h>

#include <optional>
#include <string>

#include "model/facts.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {

struct ParentPolicy {
  // Follow a symbolic link in the directory part when root or this user owns it ("/var/run"
  // -> "/run"); false refuses every link (the lock and the journal: nothing is followed).
  bool follow_owned_symlinks = true;
  // The directory that holds the file may be written by nobody but its owner (no group or
  // other write, sticky or not): the lock and the journal, whose files are reused in place.
  bool private_directory = false;
  // Make the last directory (one level, mode 0755) when it does not exist.
  bool create_directory = false;
};

struct ParentDir {
  UniqueFd fd;           // the directory, opened O_RDONLY | O_DIRECTORY
  std::string name;      // the last component of the path, to be used relative to fd
  struct stat st {};     // of the directory
};

// Opens the directory of `path` under `policy`. Refuses an empty path, a path whose last
// component is empty, "." or "..", a component that is not a directory, a link the policy
// does not follow, and a directory owned by another user than root and us. Errors name the
// component at fault.
std::optional<ParentDir> open_parent_dir(const std::string& path, const ParentPolicy& policy,
                                         ObservationError& error);

// Whether `uid` is root or this process's effective user.
bool trusted_owner(std::uint32_t uid);

}  // namespace hsperfguard::platform
