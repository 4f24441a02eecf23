// Every path the tool is given (--tmpdir, --root, --policy, --output, --metrics and the
// previous metrics file, --journal, --lock-file, inspect PATH), reached by one walk that
// another user cannot redirect.
//
// walk_path goes from "/" (or the working directory, for a relative path) one component at a
// time with openat(O_PATH | O_NOFOLLOW), so that the kernel resolves nothing on our behalf,
// and fstat's each component. A symbolic link is followed only when root or we own it AND
// root or we own the directory that holds it (another user can replace a link in a directory
// of theirs, whoever owns the link), at most 40 of them. As systemd's chase() with CHASE_SAFE,
// a step out of a directory of another user (neither root nor us) must lead to something of
// that same user: what they own they may swap, but they cannot lead the walk to a file of
// root's or of a third user's. Writers further require every directory on the way to be root's
// or ours. What comes back is an O_PATH descriptor and its stat: the caller decides by the
// type before anything is opened for reading or writing, then reopens that descriptor
// (reopen_held), never the name.
//
// Paths beneath a foreign root (a container's /proc/<pid>/root, the temp dir of --root) are
// resolved beneath that root instead (beneath_posix.hpp); only the root itself is walked here.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

#include "model/facts.hpp"
#include "model/roots.hpp"
#include "platform/posix/posix_util.hpp"

namespace hsperfguard::platform {

struct WalkRules {
  // Follow a symbolic link at all (under the rule above); false refuses every link (the lock
  // and the journal: nothing is followed in their paths).
  bool follow_links = true;
  // A link as the last component: followed (true), or handed back as itself (false: the temp
  // dir, the previous metrics file, inspect's file, whose type the caller judges).
  bool follow_last = false;
  // Writers: every directory on the way, the start included, must be root's or ours.
  bool trusted_directories = false;
  // Stop at the directory that holds the last component: `fd` is that directory and `name`
  // the last component, which need not exist (a path to be created or replaced). A last
  // component that is empty, "." or ".." is refused: the path names a directory, not a file.
  bool parent_only = false;
  // parent_only: make that directory (one level, mode 0755) when it does not exist.
  bool create_parent = false;
};

struct WalkedPath {
  UniqueFd fd;          // O_PATH: the last component, or with parent_only the directory of it
  struct stat st {};    // of fd (a link handed back as itself: of the link)
  std::string name;     // parent_only: the last component
  std::string reached;  // the path walked to fd, links resolved (for messages)
};

// Walks `path` under `rules`. On failure `error` has path = `path`, the failing operation, the
// errno, and a message that names the component at fault and why ("/tmp/alice/app is a
// symbolic link owned by uid 1001: not followed").
std::optional<WalkedPath> walk_path(const std::string& path, const WalkRules& rules,
                                    ObservationError& error);

// Opens what the O_PATH descriptor `held` holds with `flags` (O_CLOEXEC added), never by name
// again: a directory through openat(held, "."), anything else through /proc/self/fd/N. The
// result must be the inode `seen` (held's fstat) describes. O_NOATIME is tried first where the
// caller asks for it and dropped where the kernel refuses it (not the owner).
UniqueFd reopen_held(int held, const struct stat& seen, int flags, const std::string& path,
                     ObservationError& error);
inline UniqueFd reopen_walked(const WalkedPath& walked, int flags, const std::string& path,
                              ObservationError& error) {
  return reopen_held(walked.fd.get(), walked.st, flags, path, error);
}

// Whether `uid` is root or this process's effective user.
bool trusted_owner(std::uint32_t uid);

// "a regular file", "a character device", ... for messages.
const char* kind_name(mode_t mode);

// Gives the unnamed file `fd` (O_TMPFILE) the name `name` in `dirfd`: linkat with AT_EMPTY_PATH,
// or through /proc/self/fd where that needs a capability we lack. 0 or the errno (EEXIST: the
// name is taken, nothing was replaced).
int link_unnamed(int fd, int dirfd, const char* name);

// ---- the directory of a file the tool writes -------------------------------------------------

struct ParentPolicy {
  // Follow a symbolic link in the directory part ("/var/run" -> "/run") under walk_path's rule;
  // false refuses every link (the lock and the journal: nothing is followed).
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

// The directory of `path` for writing a file in it: walk_path with parent_only and
// trusted_directories (every directory on the way root's or ours), then `policy`.
std::optional<ParentDir> open_parent_dir(const std::string& path, const ParentPolicy& policy,
                                         ObservationError& error);

// The last component of a ParentDir, held O_PATH | O_NOFOLLOW (a link is held as itself) with
// its stat, for the caller to judge by type before opening it. nullopt with errno ENOENT in
// `error.code` when there is nothing by that name.
std::optional<WalkedPath> hold_entry(const ParentDir& dir, const std::string& path,
                                     ObservationError& error);

// ---- temp dirs and system roots ----------------------------------------------------------------

// The root of a foreign system, O_PATH: --root DIR walked by walk_path (a link of root's or
// ours as its last component is followed like any other); a container's /proc/<pid>/root
// (container = true) opened as the link it is by design (the path is ours, not the user's).
UniqueFd open_system_root(const std::string& root, bool container, ObservationError& error);

// A temp dir held as itself (O_PATH, a link there is handed back, never followed) with its
// stat: beneath `root_fd` when it is valid (openat2 RESOLVE_IN_ROOT, or the walk of
// beneath_posix), else a temp dir of this host walked by walk_path (--tmpdir, /tmp).
std::optional<WalkedPath> hold_temp_dir(int root_fd, const std::string& temp_dir,
                                        ObservationError& error);

// A file beneath a foreign root held as itself (O_PATH: nothing of it is opened, no driver's
// open runs for a device) with its fstat, resolved beneath `root_fd` (open_beneath: links
// followed inside the root, or refused by the walk). The caller judges it by its type, then
// reopens it (reopen_held). On failure `error` has path = `path`.
std::optional<WalkedPath> hold_beneath(int root_fd, const std::string& path, ObservationError& error);

// The version of the file `st` describes (model/roots.hpp).
FileVersion version_of(const struct stat& st);

// hold_temp_dir (through open_system_root for a foreign root), then the directory opened with
// `flags` (O_RDONLY | O_DIRECTORY ...): a link or anything but a directory is refused, named
// as what it is.
UniqueFd open_temp_dir(RootKind kind, const std::string& root, const std::string& temp_dir,
                       int flags, ObservationError& error);

// The refusal of a temp dir that is not a directory ("is a symbolic link: a temp dir is never
// followed").
ObservationError not_a_temp_dir(const std::string& path, mode_t mode);

}  // namespace hsperfguard::platform
