// create and repair on Linux. See platform/create.hpp for the sequence; the reasons are here.
//
// Root acts with its own identity here, unlike the reaper: it only ever makes new names
// (mkdirat, openat O_CREAT|O_EXCL|O_NOFOLLOW: nothing existing is followed or reused) and
// changes inodes it holds open and has compared with what was judged (fchmod, acl_set_fd,
// fremovexattr; fchown only of what create made, never of what repair finds), so no path lookup is left for a racer to redirect. The one
// lookup that remains is the clean-up after a failure, which unlinks a name only while it
// still names the inode we made.
#include <acl/libacl.h>
#include <fcntl.h>
#include <sys/acl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "platform/create.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/safe_path_posix.hpp"

namespace hsperfguard::platform {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
constexpr const char* kDefaultAclXattr = "system.posix_acl_default";

struct AclFree {
  void operator()(void* p) const { ::acl_free(p); }
};
using AclPtr = std::unique_ptr<std::remove_pointer_t<acl_t>, AclFree>;

bool acl_unsupported(int err) { return err == ENOTSUP || err == EOPNOTSUPP; }

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool matches(const struct stat& st, const ExpectedInode& want) {
  return static_cast<std::uint64_t>(st.st_dev) == want.dev &&
         static_cast<std::uint64_t>(st.st_ino) == want.ino && kind_from_mode(st.st_mode) == want.kind &&
         st.st_uid == want.uid;
}

ExpectedInode expected_of(const struct stat& st) { return expected_from(to_inode_facts(st)); }

// The temp dir, opened the way observation opened it (platform::open_temp_dir), and checked
// against what it saw.
UniqueFd open_checked_temp_dir(const TempDirLocation& where, CreateResult& result, struct stat& st) {
  ObservationError err;
  UniqueFd temp = open_temp_dir(where.kind, where.root_dir, where.temp_dir, kDirFlags, err);
  if (!temp.valid()) {
    result.failure = CreateFailure::failed;
    result.error = err;
    return temp;
  }
  if (::fstat(temp.get(), &st) != 0) {
    result.failure = CreateFailure::failed;
    result.error = make_error(where.temp_dir, "fstat", errno);
    temp.reset();
  } else if (where.expected && (static_cast<std::uint64_t>(st.st_dev) != where.expected->dev ||
                                static_cast<std::uint64_t>(st.st_ino) != where.expected->ino)) {
    result.failure = CreateFailure::changed;
    result.error = ObservationError{where.temp_dir, "open", 0, "replaced since it was observed"};
    temp.reset();
  }
  return temp;
}

CreateFailure failure_of(int err) {
  if (err == EEXIST) return CreateFailure::exists;
  if (err == ENOSPC || err == EDQUOT) return CreateFailure::no_space;
  return CreateFailure::failed;
}

void fail(CreateResult& result, const std::string& path, const char* op, int err) {
  result.failure = failure_of(err);
  result.error = make_error(path, op, err);
  if (result.failure == CreateFailure::no_space) {
    result.error->message += " (the file system is full)";
  }
}

// Reopens the directory `name` of the temp dir, without following, and checks that it is
// still the one that was judged (`want`) and on the temp dir's device. On failure the fd
// is invalid and `result` says why ("changed" unless a system call failed otherwise).
UniqueFd reopen_directory(int temp_fd, const struct stat& temp_st, const std::string& name,
                          const std::string& path, const ExpectedInode& want, const char* not_it,
                          struct stat& st, CreateResult& result) {
  UniqueFd dir(::openat(temp_fd, name.c_str(), kDirFlags));
  if (!dir.valid()) {
    result.failure = CreateFailure::changed;
    result.error = make_error(path, "openat", errno);
    return dir;
  }
  if (::fstat(dir.get(), &st) != 0) {
    fail(result, path, "fstat", errno);
    return UniqueFd();
  }
  if (!matches(st, want) || st.st_dev != temp_st.st_dev) {
    result.failure = CreateFailure::changed;
    result.error = ObservationError{path, "openat", 0, not_it};
    return UniqueFd();
  }
  return dir;
}

// Removes `name` from `dirfd` only while it still names the inode `fd` holds.
void remove_if_ours(int dirfd, const std::string& name, int fd, int flags) {
  struct stat held {};
  struct stat named {};
  if (::fstat(fd, &held) != 0) return;
  if (::fstatat(dirfd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (held.st_dev != named.st_dev || held.st_ino != named.st_ino) return;
  ::unlinkat(dirfd, name.c_str(), flags);
}

// The access ACL reduced to the three entries `mode` implies; none on file systems without ACLs.
int set_minimal_acl(int fd, std::uint32_t mode) {
  AclPtr acl(::acl_from_mode(static_cast<mode_t>(mode & 0777)));
  if (!acl) return errno;
  if (::acl_set_fd(fd, acl.get()) != 0 && !acl_unsupported(errno)) return errno;
  return 0;
}

// libacl has no fd form of acl_delete_def_file: the default ACL is its extended attribute.
// errno is read only after a failed call (no default ACL, or none possible, is no failure).
int remove_default_acl(int fd) {
  if (::fremovexattr(fd, kDefaultAclXattr) == 0) return 0;
  const int err = errno;
  return err == ENODATA || acl_unsupported(err) ? 0 : err;
}

bool write_all(int fd, const std::byte* data, std::size_t size, off_t at, int& err) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, size, at);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      return false;
    }
    // Nothing written and no error: asking again would get the same answer for ever. A
    // regular file writes less than asked only when its file system has no room for more
    // (SQLite reads a short write the same way), so ENOSPC, not EIO: the caller then says
    // the file system is full, removes the file, and exits as a full /tmp does.
    if (n == 0) {
      err = ENOSPC;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
    at += n;
  }
  return true;
}

// Space for `size` bytes, reserved now. posix_fallocate (glibc already emulates it where
// the file system lacks fallocate); where even that is refused, HotSpot's way: set the size,
// then write one zero byte per page so that every page is allocated.
int reserve(int fd, std::size_t size) {
  int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (rc == 0) return 0;
  if (rc != EOPNOTSUPP && rc != EINVAL) return rc;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return errno;
  const std::size_t page = page_size();
  const std::byte zero{0};
  for (std::size_t at = 0; at < size; at += page) {
    int err = 0;
    if (!write_all(fd, &zero, 1, static_cast<off_t>(at), err)) return err;
  }
  return 0;
}

}  // namespace

std::size_t page_size() {
  const long page = ::sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<std::size_t>(page) : 4096;
}

CreateResult make_namespace(const NamespaceRequest& request) {
  CreateResult result;
  struct stat temp_st {};
  UniqueFd temp = open_checked_temp_dir(request.where, result, temp_st);
  if (!temp.valid()) return result;
  const std::string path = join(request.where.temp_dir, request.name);
  const char* name = request.name.c_str();

  if (request.existing) {
    // Verify the namespace that was judged compliant; only the bits asked for are removed.
    struct stat st {};
    const UniqueFd dir = reopen_directory(temp.get(), temp_st, request.name, path, *request.existing,
                                          "not the directory that was observed and judged", st, result);
    if (!dir.valid()) return result;
    const auto before = static_cast<std::uint32_t>(st.st_mode & 07777);
    const std::uint32_t after = before & ~request.clear_bits;
    if (after != before) {
      if (::fchmod(dir.get(), static_cast<mode_t>(after)) != 0) {
        fail(result, path, "fchmod", errno);
        return result;
      }
      result.mode_before = before;
    }
    if (::fstat(dir.get(), &st) != 0) {
      fail(result, path, "fstat", errno);
      return result;
    }
    result.made = expected_of(st);
    return result;
  }

  // 0700 until finished: nobody can look in or plant anything before owner and ACLs are right.
  if (::mkdirat(temp.get(), name, 0700) != 0) {
    fail(result, path, "mkdirat", errno);
    return result;
  }
  UniqueFd dir(::openat(temp.get(), name, kDirFlags));
  if (!dir.valid()) {
    // Not removed: we cannot prove that what the name leads to now is what we made.
    result.failure = CreateFailure::changed;
    result.error = make_error(path, "openat", errno);
    return result;
  }
  struct stat st {};
  if (::fstat(dir.get(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() ||
      st.st_dev != temp_st.st_dev || (st.st_mode & 0077) != 0) {
    result.failure = CreateFailure::changed;
    result.error = ObservationError{path, "openat", 0,
                                    "the directory just made was replaced before it could be opened"};
    return result;
  }
  result.created = true;
  auto undo = [&](const char* op, int err) {
    fail(result, path, op, err);
    remove_if_ours(temp.get(), request.name, dir.get(), AT_REMOVEDIR);
    return result;
  };
  if (request.chown && ::fchown(dir.get(), static_cast<uid_t>(request.uid), static_cast<gid_t>(request.gid)) != 0) {
    return undo("fchown", errno);
  }
  // A default ACL on the temp dir is inherited by mkdir: both ACLs go, before the final mode.
  if (const int err = remove_default_acl(dir.get()); err != 0) return undo("fremovexattr", err);
  if (const int err = set_minimal_acl(dir.get(), request.mode); err != 0) return undo("acl_set_fd", err);
  if (::fchmod(dir.get(), static_cast<mode_t>(request.mode)) != 0) return undo("fchmod", errno);
  if (::fstat(dir.get(), &st) != 0) return undo("fstat", errno);
  result.made = expected_of(st);
  return result;
}

CreateResult make_backing_file(const BackingFileRequest& request) {
  CreateResult result;
  struct stat temp_st {};
  UniqueFd temp = open_checked_temp_dir(request.where, result, temp_st);
  if (!temp.valid()) return result;
  const std::string ns_path = join(request.where.temp_dir, request.namespace_name);
  const std::string path = join(ns_path, request.name);

  struct stat dir_st {};
  const UniqueFd dir =
      reopen_directory(temp.get(), temp_st, request.namespace_name, ns_path, request.namespace_expected,
                       "not the namespace that was verified", dir_st, result);
  if (!dir.valid()) return result;

  UniqueFd file(::openat(dir.get(), request.name.c_str(),
                         O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600));
  if (!file.valid()) {
    fail(result, path, "openat", errno);
    return result;
  }
  result.created = true;
  auto undo = [&](const char* op, int err) {
    fail(result, path, op, err);
    // Give the space back even if the name was taken away from us meanwhile.
    (void)!::ftruncate(file.get(), 0);  // best effort: the error that made us undo is reported
    remove_if_ours(dir.get(), request.name, file.get(), 0);
    return result;
  };
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return undo("fstat", errno);
  if (!S_ISREG(st.st_mode) || st.st_nlink != 1) return undo("openat", EINVAL);
  if (request.chown && ::fchown(file.get(), static_cast<uid_t>(request.uid), static_cast<gid_t>(request.gid)) != 0) {
    return undo("fchown", errno);
  }
  if (const int err = set_minimal_acl(file.get(), 0600); err != 0) return undo("acl_set_fd", err);
  if (::fchmod(file.get(), 0600) != 0) return undo("fchmod", errno);
  // Held while the region is written, as a JVM holds it while the file is in use.
  if (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) return undo("flock", errno);
  if (const int err = reserve(file.get(), request.content.size()); err != 0) {
    return undo("posix_fallocate", err);
  }
  // The entries first, the prologue (which makes them visible) last.
  const std::size_t head = std::min(request.content.size(), perfdata::kPrologueSize);
  int err = 0;
  if (!write_all(file.get(), request.content.data() + head, request.content.size() - head,
                 static_cast<off_t>(head), err) ||
      !write_all(file.get(), request.content.data(), head, 0, err)) {
    return undo("pwrite", err);
  }
  if (::fstat(file.get(), &st) != 0) return undo("fstat", errno);
  result.made = expected_of(st);
  return result;  // the lock goes with the descriptor
}

// ---- repair ----------------------------------------------------------------------------------

namespace {

class RepairExecutor {
 public:
  explicit RepairExecutor(const RepairPlan& plan) : plan_(plan) {}

  std::vector<RepairOutcomeRecord> run() {
    std::vector<RepairOutcomeRecord> out;
    for (std::size_t i = 0; i < plan_.targets.size(); ++i) {
      RepairOutcomeRecord record;
      record.target = i;
      apply(plan_.targets[i], record);
      out.push_back(std::move(record));
    }
    return out;
  }

 private:
  struct Temp {
    UniqueFd fd;
    struct stat st {};
    std::optional<ObservationError> error;
    bool changed = false;
  };

  Temp& temp_of(std::size_t root) {
    auto it = temps_.find(root);
    if (it != temps_.end()) return it->second;
    Temp& t = temps_[root];
    const RepairRoot& r = plan_.roots.at(root);
    TempDirLocation where{r.kind, r.root_dir, r.temp_dir, r.expected};
    CreateResult result;
    t.fd = open_checked_temp_dir(where, result, t.st);
    if (!r.expected) {
      t.fd.reset();
      result.error = ObservationError{r.temp_dir, "open", 0, "never observed"};
    }
    t.error = result.error;
    t.changed = result.failure == CreateFailure::changed;
    return t;
  }

  static void settle(RepairOutcomeRecord& record, RepairOutcome outcome, std::string detail,
                     std::optional<ObservationError> error = std::nullopt) {
    record.outcome = outcome;
    record.detail = std::move(detail);
    record.error = std::move(error);
  }

  void settle_errno(RepairOutcomeRecord& record, const std::string& path, const char* op, int err) {
    if (err == ENOENT) return settle(record, RepairOutcome::vanished, "not-found");
    if (err == ELOOP || err == ENOTDIR || err == EISDIR) {
      return settle(record, RepairOutcome::changed, "identity-changed",
                    ObservationError{path, op, err, "not the entry that was judged"});
    }
    settle(record, RepairOutcome::failed, op, make_error(path, op, err));
  }

  void apply(const RepairTarget& target, RepairOutcomeRecord& record) {
    Temp& temp = temp_of(target.root);
    if (!temp.fd.valid()) {
      return settle(record, temp.changed ? RepairOutcome::changed : RepairOutcome::failed,
                    "temp-dir-changed", temp.error);
    }
    const std::string ns_path = join(plan_.roots[target.root].temp_dir, target.namespace_name);
    UniqueFd dir(::openat(temp.fd.get(), target.namespace_name.c_str(), kDirFlags));
    if (!dir.valid()) return settle_errno(record, ns_path, "openat", errno);
    struct stat dir_st {};
    if (::fstat(dir.get(), &dir_st) != 0) return settle_errno(record, ns_path, "fstat", errno);
    // The namespace as judged, or as an earlier target of this run left it.
    const auto key = std::make_pair(target.root, target.namespace_name);
    const auto now = namespaces_.find(key);
    const ExpectedInode& want = now != namespaces_.end() ? now->second : target.namespace_expected;
    if (!matches(dir_st, want) || (dir_st.st_mode & 07777) != want.mode ||
        dir_st.st_dev != temp.st.st_dev) {
      return settle(record, RepairOutcome::changed, "namespace-changed",
                    ObservationError{ns_path, "openat", 0,
                                     "not the namespace that was judged (dev, ino, owner or mode changed)"});
    }

    if (!target.file) {
      if (!change(dir.get(), target, target.path, record)) return;
      if (::fstat(dir.get(), &dir_st) == 0) namespaces_[key] = expected_of(dir_st);
      return settle(record, RepairOutcome::fixed, describe_target_changes(target));
    }

    // A file: held as itself first (O_PATH opens nothing), checked, and only then opened.
    UniqueFd held(::openat(dir.get(), target.file->c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!held.valid()) return settle_errno(record, target.path, "openat", errno);
    struct stat st {};
    if (::fstat(held.get(), &st) != 0) return settle_errno(record, target.path, "fstat", errno);
    if (!matches(st, target.expected) || (st.st_mode & 07777) != target.expected.mode ||
        st.st_nlink != 1 || !S_ISREG(st.st_mode) || st.st_dev != dir_st.st_dev) {
      return settle(record, RepairOutcome::changed, "identity-changed",
                    ObservationError{target.path, "openat", 0,
                                     "not the file that was judged (dev, ino, kind, owner, mode or links changed)"});
    }
    ObservationError reopened;
    UniqueFd file = reopen_held(held.get(), st, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOATIME, target.path, reopened);
    if (!file.valid()) {
      if (reopened.code == EAGAIN) return settle(record, RepairOutcome::changed, "identity-changed", reopened);
      return settle_errno(record, target.path, "open", reopened.code);
    }
    if (!change(file.get(), target, target.path, record)) return;
    settle(record, RepairOutcome::fixed, describe_target_changes(target));
  }

  // ACLs, mode, then owner, on the held descriptor.
  bool change(int fd, const RepairTarget& target, const std::string& path, RepairOutcomeRecord& record) {
    const std::uint32_t mode = target.new_mode.value_or(target.expected.mode);
    if (target.strip_access_acl) {
      if (const int err = set_minimal_acl(fd, mode); err != 0) {
        settle(record, RepairOutcome::failed, "acl_set_fd", make_error(path, "acl_set_fd", err));
        return false;
      }
    }
    if (target.remove_default_acl) {
      if (const int err = remove_default_acl(fd); err != 0) {
        settle(record, RepairOutcome::failed, "fremovexattr", make_error(path, "fremovexattr", err));
        return false;
      }
    }
    if (target.new_mode && ::fchmod(fd, static_cast<mode_t>(*target.new_mode)) != 0) {
      settle(record, RepairOutcome::failed, "fchmod", make_error(path, "fchmod", errno));
      return false;
    }
    return true;
  }

  const RepairPlan& plan_;
  std::map<std::size_t, Temp> temps_;
  std::map<std::pair<std::size_t, std::string>, ExpectedInode> namespaces_;
};

}  // namespace

std::vector<RepairOutcomeRecord> execute_repair(const RepairPlan& plan) {
  return RepairExecutor(plan).run();
}

}  // namespace hsperfguard::platform
