// The create and repair primitives, the neutral interface. They judge nothing: `create` and
// `repair` decide (decide/create.hpp, decide/repair.hpp) and these carry the decision out,
// refusing when what they find is no longer what was judged.
//
// POSIX (platform/posix/create_posix.cpp):
// - the temp dir is opened as observation opened it (platform/posix/safe_path_posix.hpp: the
//   one path walk, no link of another user's followed on the way and the temp dir itself
//   never; beneath the root for --root, the root itself reached by the same walk) and its
//   (dev, ino) compared with what observation saw; everything else is relative to that fd;
// - a namespace is made with mkdirat(0700) (nothing can be planted in it before it is
//   finished), opened O_DIRECTORY|O_NOFOLLOW, fstat-checked (a directory, ours, on the temp
//   dir's device), fchown'ed to the user, stripped of any access and default ACL (the temp
//   dir's default ACL would otherwise be inherited), then fchmod'ed to its final mode. If a
//   step fails, the directory it made is removed again;
// - a backing file is made with openat(O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) in the
//   verified namespace, fchown'ed, locked (flock LOCK_EX, as a JVM holds it) while it is
//   written, its space reserved first (posix_fallocate; where the file system cannot, one
//   byte written per page, as HotSpot does) so that a full file system fails now, with no
//   file left behind, rather than with SIGBUS in a reader later; the entries are written
//   before the prologue;
// - repair reopens each namespace and file the same way, compares (dev, ino, kind, owner,
//   mode, links) with the plan, and changes only the inode it holds: files are held O_PATH
//   first and reopened through /proc/self/fd only once fstat proved them regular files (a
//   FIFO or device swapped in is never opened). ACLs are set on the fd (libacl), the default
//   ACL removed from the fd (its extended attribute), mode with fchmod (repair never changes an owner).
// Windows (platform/windows/create_windows.cpp):
// - the temp dir is opened as itself (never a reparse point) without FILE_SHARE_DELETE, so it
//   cannot be renamed or replaced while we work, and its (volume serial, file index) compared
//   with what observation saw; the namespace is held the same way while a file is made in it;
// - a namespace is made with CreateDirectoryW and a backing file with CreateFileW(CREATE_NEW,
//   FILE_FLAG_OPEN_REPARSE_POINT), both with an explicit descriptor from
//   win::creation_sddl: owner the user's SID, protected DACL (nothing inherited from the temp
//   dir), HotSpot's masks except that Everyone cannot read a backing file's data. Owner and
//   DACL are in place from the first instant: there is no window to plant anything;
// - the owner is the user's SID (`owner_sid`); making another user the owner needs
//   SeRestorePrivilege, which is enabled when the token has it. When Windows refuses that
//   owner, this process's user owns it instead and a note in the result says so;
// - uid, gid, mode bits and chown have no meaning there (--mode 0700 drops Everyone's ACE
//   from the namespace); a file's space is reserved by setting its end and writing the whole
//   region (entries first, prologue last), then FlushFileBuffers. A file made and not
//   finished is deleted through its own handle;
// - repair sets DACLs only: the temp dir and the namespace are pinned as themselves, the file
//   opened with FILE_FLAG_OPEN_REPARSE_POINT (asking no data access, so a JVM's share mode
//   does not stand in the way), each compared (volume serial, file index, kind, links, owner)
//   with what was judged; the planned DACL is set through that handle (protected), read back
//   through it, and the target is fixed only when the stored DACL is the one given. No owner
//   is changed and nothing is removed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/expected_inode.hpp"
#include "model/facts.hpp"
#include "model/repair_plan.hpp"

namespace hsperfguard::platform {

// Where a namespace lives: as discover named the temp dir, and as observation saw it.
struct TempDirLocation {
  RootKind kind = RootKind::host;
  std::string root_dir = "/";
  std::string temp_dir = "/tmp";
  std::optional<ExpectedInode> expected;  // the observed temp dir; nullopt: not checked
};

enum class CreateFailure {
  none,
  exists,    // the name is taken (a namespace or backing file appeared, or already existed)
  changed,   // the temp dir or namespace is not the one that was observed and judged
  no_space,  // ENOSPC / EDQUOT: the file system is full (nothing was left behind)
  failed,    // any other system call failure
};

struct CreateResult {
  CreateFailure failure = CreateFailure::none;
  std::optional<ObservationError> error;
  bool created = false;          // something new was made (false: an existing one was verified)
  // An existing namespace whose mode this run changed: its mode before (made->mode is after).
  std::optional<std::uint32_t> mode_before;
  std::optional<ExpectedInode> made;  // the namespace or file, as fstat saw it at the end
  std::vector<std::string> notes;     // what the caller should tell the user (Windows: an owner substituted)
  bool ok() const { return failure == CreateFailure::none; }
};

struct NamespaceRequest {
  TempDirLocation where;
  std::string name;  // "hsperfdata_alice"
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint32_t mode = 0755;  // the mode of a namespace that is made
  // The namespace as observed and judged compliant: it is verified (same inode, owner) and
  // only `clear_bits` are removed from its mode as fstat finds it then (nothing is ever added,
  // so a mode changed since it was judged is not loosened either). nullopt: it must not
  // exist, and is made with `mode`.
  std::optional<ExpectedInode> existing;
  std::uint32_t clear_bits = 0;
  bool chown = false;  // give it to uid:gid (root only)
  std::optional<std::string> owner_sid;  // Windows: the user's SID (nullopt: this process's user)
};

CreateResult make_namespace(const NamespaceRequest& request);

struct BackingFileRequest {
  TempDirLocation where;
  std::string namespace_name;
  ExpectedInode namespace_expected;  // as made or verified by make_namespace
  std::string name;                  // the pid, in decimal
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  bool chown = false;
  std::optional<std::string> owner_sid;  // Windows: the user's SID (nullopt: this process's user)
  std::vector<std::byte> content;  // the whole region; its size is a multiple of the page size
};

CreateResult make_backing_file(const BackingFileRequest& request);

// The page size readers require a region to be a multiple of.
std::size_t page_size();

// ---- repair --------------------------------------------------------------------------------

// Applies every target of the plan, in order; one record per target.
std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan);

}  // namespace hsperfguard::platform
