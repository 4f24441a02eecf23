// scan_container_temp_dirs on Linux: one pass over /proc.
//
// Per process: readlink ns/mnt and a stat of its root (through the /proc magic link; both
// need ptrace access: CAP_SYS_PTRACE for a process whose capabilities are not a subset of ours,
// as a container's root processes' are not when we run with a bounding set). A process whose
// link cannot be read is placed at our root by its mountinfo when it can be
// (read_mount_namespace); one that cannot be placed, or whose root cannot be reached, is
// unobserved: the run that had it is incomplete. A (mount namespace, root) seen
// before costs nothing more; a new one has its root opened and its /tmp resolved beneath it with
// open_beneath (openat2 RESOLVE_IN_ROOT, or the O_NOFOLLOW walk), so that a /tmp planted as
// a symlink to "/../../etc" inside a container names the container's etc, never the host's.
// Its etc/passwd is held the same way, for its version (discovery puts roots sharing one
// together). Nothing is opened for reading: O_PATH only, but for the listing of the host's temp
// dir when a process of our pid namespace has a /tmp of its own (systemd's PrivateTmp=): its
// systemd-private-* directories are listed with the identity of their tmp, which discovery
// matches to the scanned /tmps.
#include "platform/posix/containers_posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <tuple>

#include "model/systemd_unit.hpp"
#include "platform/containers.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/dirents_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"
#include "platform/posix/stat_posix.hpp"

namespace hsperfguard::platform {
namespace {

constexpr std::size_t kMaxErrors = 8;
constexpr int kPathDir = O_PATH | O_DIRECTORY | O_CLOEXEC;

// The identity of what `fd` holds; nullopt with `err` filled (path, "fstat", errno) when its
// fstat fails (a FUSE mount of a user namespace refuses root: EACCES).
std::optional<DirIdentity> identity_of(int fd, ObservationError* err = nullptr,
                                       const std::string& path = {}) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    if (err != nullptr) *err = make_error(path, "fstat", errno);
    return std::nullopt;
  }
  return DirIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// The root's etc/passwd when it is a regular file: held (O_PATH opens nothing) and its fstat.
std::optional<FileVersion> passwd_version(int root_fd) {
  ObservationError ignored;  // the observation of the root reads it again and says why
  const std::optional<WalkedPath> held = hold_beneath(root_fd, "etc/passwd", ignored);
  if (!held || !S_ISREG(held->st.st_mode)) return std::nullopt;
  return version_of(held->st);
}

// One pass over /proc, a process at a time, and what it found so far.
class ContainerScanner {
 public:
  ContainerScanner(const ContainerScanOptions& options, const ProcessVisitor& visit)
      : options_(options), visit_(visit), own_mounts_(OwnMounts::read()) {}

  ContainerScan run() {
    read_own_identities();
    int list_err = 0;
    const std::vector<std::int32_t> pids = pids_to_scan(list_err);
    bool stopped = false;
    // By index: how many were looked at is said when the limits stop the pass.
    for (std::size_t looked_at = 0; looked_at < pids.size(); ++looked_at) {
      if (const char* why = options_.limits.reached()) {
        stopped = true;
        scan_.errors.push_back(
            ObservationError{"/proc", "scan", EINTR,
                             std::string("stopped (") + why + "): containers of " +
                                 std::to_string(looked_at) + " of " +
                                 std::to_string(pids.size()) + " processes looked at"});
        break;
      }
      scan_process(pids[looked_at]);
    }
    scan_.placements_complete = options_.place_processes && list_err == 0 && !stopped;
    if (!stopped && any_in_our_pid_namespace()) find_systemd_private_tmps();
    return std::move(scan_);
  }

 private:
  // Our own mount and pid namespaces, root and temp dir: what a process must differ from to
  // be worth looking into.
  void read_own_identities() {
    scan_.own_mount_namespace = own_mounts_.mount_namespace;
    if (readlink_at(AT_FDCWD, "/proc/self/ns/pid", text_) == 0) scan_.own_pid_namespace = text_;
    if (UniqueFd fd(::open("/", kPathDir)); fd.valid()) own_root_ = identity_of(fd.get());
    if (UniqueFd fd(::open(options_.host_temp_dir.c_str(), kPathDir)); fd.valid()) {
      scan_.host_temp_dir = identity_of(fd.get());
    }
  }

  // The pids /proc lists, and the focus pid, sorted and each once.
  std::vector<std::int32_t> pids_to_scan(int& list_err) {
    std::vector<std::int32_t> pids = list_pids("/proc", &list_err);
    if (list_err != 0) scan_.errors.push_back(make_error("/proc", "getdents64", list_err));
    if (options_.focus_pid) pids.push_back(*options_.focus_pid);
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    return pids;
  }

  // One process: its mount namespace, then its root, then the /tmp beneath a root not seen
  // before.
  void scan_process(std::int32_t pid) {
    focus_ = options_.focus_pid == pid;
    const std::string dir_path = "/proc/" + std::to_string(pid);
    UniqueFd dir(::open(dir_path.c_str(), kPathDir));
    if (!dir.valid()) {
      const int e = errno;
      if (!vanished(e)) place(pid, -1, nullptr, e);
      process_unreached(pid, make_error(dir_path, "open", e));
      return;
    }
    ++scan_.processes;
    if (visit_ && !visit_(pid, dir.get()) && !focus_) return;
    // Its link, or (when that needs more than we have) its mountinfo placing it at our root.
    bool at_our_root = false;
    if (const int e = read_mount_namespace(dir.get(), "", own_mounts_, mnt_, status_, &at_our_root);
        e != 0) {
      if (!vanished(e)) place(pid, dir.get(), nullptr, e);
      process_unreached(pid, make_error(dir_path + "/ns/mnt", "readlink", e));
      return;
    }
    if (at_our_root && !focus_) return;  // our namespace and root: the host's /tmp
    if (scan_.own_mount_namespace != mnt_) place(pid, dir.get(), &mnt_, 0);
    const UniqueFd root = open_new_root(pid, dir.get(), dir_path);
    if (!root.valid()) return;
    record_temp_dir(pid, dir.get(), root.get(), dir_path);
  }

  // The root of the process in mnt_, followed: /proc/<pid>/root is a link by design. Opened
  // only for a view not seen before; then it is that directory's identity that counts.
  // Invalid when it is ours, seen before (unless the process is the focus), or unreachable.
  UniqueFd open_new_root(std::int32_t pid, int dirfd, const std::string& dir_path) {
    struct stat root_st {};
    if (::fstatat(dirfd, "root", &root_st, 0) != 0) {
      const int e = errno;
      process_unreached(pid, make_error(dir_path + "/root", "stat", e));
      return {};
    }
    std::optional<DirIdentity> root_id = DirIdentity{static_cast<std::uint64_t>(root_st.st_dev),
                                                     static_cast<std::uint64_t>(root_st.st_ino)};
    if (!focus_ && scan_.own_mount_namespace == mnt_ && own_root_ == root_id) return {};
    if (!focus_ && seen_.contains({mnt_, root_id->dev, root_id->ino})) return {};
    UniqueFd root(::openat(dirfd, "root", kPathDir));
    ObservationError root_err;
    if (!root.valid()) root_err = make_error(dir_path + "/root", "open", errno);
    root_id = root.valid() ? identity_of(root.get(), &root_err, dir_path + "/root") : std::nullopt;
    if (!root_id) {
      process_unreached(pid, std::move(root_err));
      return {};
    }
    if (!focus_ && scan_.own_mount_namespace == mnt_ && own_root_ == root_id) return {};
    if (!seen_.emplace(mnt_, root_id->dev, root_id->ino).second && !focus_) return {};
    return root;
  }

  // The /tmp beneath the process's root, recorded with what names the container: its mount
  // and pid namespaces, its passwd and its cgroup.
  void record_temp_dir(std::int32_t pid, int dirfd, int root_fd, const std::string& dir_path) {
    ObservationError err;
    UniqueFd tmp = open_beneath(root_fd, "tmp", kPathDir, &err);
    const std::optional<DirIdentity> tmp_id =
        tmp.valid() ? identity_of(tmp.get(), &err, dir_path + "/root/tmp") : std::nullopt;
    if (!tmp_id) {
      // A root without a /tmp (a distroless image, a kernel thread's) has no namespace to
      // audit; only a refused or unreadable one is worth an error.
      if (tmp.valid() || err.code != ENOENT || focus_) {
        err.path = dir_path + "/root/tmp";
        note(std::move(err));
      }
      return;
    }
    ProcessTempDir& entry = scan_.temp_dirs.emplace_back();
    entry.host_pid = pid;
    entry.mount_namespace = mnt_;
    entry.temp_dir = *tmp_id;
    entry.passwd = passwd_version(root_fd);
    if (readlink_at(dirfd, "ns/pid", text_) == 0) entry.pid_namespace = text_;
    entry.cgroup = reader_.read_cgroup(pid);
  }

  // A /tmp of a process that shares our pid namespace from another mount namespace (systemd's
  // PrivateTmp=, a pod's sidecar): worth asking whose /tmp it is.
  bool any_in_our_pid_namespace() const {
    return std::any_of(scan_.temp_dirs.begin(), scan_.temp_dirs.end(),
                       [&](const ProcessTempDir& t) {
                         return t.pid_namespace && t.pid_namespace == scan_.own_pid_namespace &&
                                t.mount_namespace != scan_.own_mount_namespace;
                       });
  }

  // The host temp dir's systemd-private-*/tmp directories, each with its identity; which
  // scanned /tmp is one of them is discovery's to match (decide/discover.cpp).
  // Anyone can make a systemd-private-* name in a shared /tmp: each step opens one entry
  // without following a link and without crossing onto another mount (a user's FUSE server
  // is never asked), and only a directory owned by root counts, as systemd makes them.
  void find_systemd_private_tmps() {
    UniqueFd host_tmp(
        ::open(options_.host_temp_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!host_tmp.valid()) {
      note(make_error(options_.host_temp_dir, "open", errno));
      return;
    }
    std::vector<char> buffer;
    DirentReader entries(host_tmp.get(), buffer);
    std::vector<std::string> names;
    while (const std::optional<Dirent> e = entries.next()) {
      if (e->name.starts_with(kSystemdPrivatePrefix)) names.emplace_back(e->name);
    }
    if (entries.error() != 0)
      note(make_error(options_.host_temp_dir, "getdents64", entries.error()));
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (const std::optional<DirIdentity> tmp = private_tmp_identity(host_tmp.get(), name)) {
        scan_.systemd_private_tmps.push_back(SystemdPrivateTmp{name, *tmp});
      }
    }
  }

  // The identity of <host temp dir>/<name>/tmp when <name> is a root-owned directory on the
  // temp dir's mount and its tmp a directory on that mount too.
  static std::optional<DirIdentity> private_tmp_identity(int host_tmp, const std::string& name) {
    UniqueFd dir = open_dir_on_this_mount(host_tmp, name.c_str());
    struct stat st {};
    if (!dir.valid() || ::fstat(dir.get(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
      return std::nullopt;
    }
    UniqueFd tmp = open_dir_on_this_mount(dir.get(), "tmp");
    if (!tmp.valid()) return std::nullopt;
    return identity_of(tmp.get());
  }

  // `name` in `dirfd`, a directory on dirfd's mount, opened O_PATH without following a link.
  // Without openat2 (an old kernel, a seccomp filter refusing it) the entry is first looked at
  // by a statx that neither follows a link nor syncs with its file system: a directory on
  // another mount (its mount id or device differs) is not opened at all; then the open must
  // find the very (dev, ino) the statx saw. Before Linux 5.8 statx gives no mount id, and a
  // bind mount of the same file system shares the device: then the mount ids are
  // name_to_handle_at's, of the directory opened (what was looked at before may have been
  // swapped) and of its parent.
  static UniqueFd open_dir_on_this_mount(int dirfd, const char* name) {
    UniqueFd fd(open_entry_on_this_mount(dirfd, name, kPathDir));
    if (fd.valid() || errno != ENOSYS) return fd;
    Stat parent, entry;
    if (stat_at(dirfd, "", AT_EMPTY_PATH, parent) != 0 ||
        stat_at(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, entry) != 0 ||
        entry.inode.kind != FileKind::directory || entry.inode.dev != parent.inode.dev ||
        (entry.mount_id && parent.mount_id && *entry.mount_id != *parent.mount_id)) {
      return UniqueFd();
    }
    UniqueFd opened(::openat(dirfd, name, kPathDir | O_NOFOLLOW));
    const std::optional<DirIdentity> id = opened.valid() ? identity_of(opened.get()) : std::nullopt;
    if (!id || id->dev != entry.inode.dev || id->ino != entry.inode.ino) return UniqueFd();
    if (!entry.mount_id && !on_the_same_mount_by_handles(opened.get(), dirfd)) return UniqueFd();
    return opened;
  }

  // Whether name_to_handle_at places `held` on the mount of `dir` (both descriptors); yes when
  // it gives no id for either (a file system that exports no handles: the device is all there
  // is to compare).
  static bool on_the_same_mount_by_handles(int held, int dir) {
    const std::optional<std::uint64_t> held_id = handle_mount_id(held, "", AT_EMPTY_PATH);
    const std::optional<std::uint64_t> dir_id = handle_mount_id(dir, "", AT_EMPTY_PATH);
    return !held_id || !dir_id || *held_id == *dir_id;
  }

  void note(ObservationError e) {
    if (focus_ || scan_.errors.size() < kMaxErrors) scan_.errors.push_back(std::move(e));
  }

  // A process whose /proc directory, mount namespace or root could not be reached through
  // `e`: a container there, if it is one, is not looked into. One that has gone is said only
  // when it is the focus.
  void process_unreached(std::int32_t pid, ObservationError e) {
    if (vanished(e.code)) {
      if (focus_) note(std::move(e));
      return;
    }
    UnobservedProcesses& u = scan_.unobserved;
    ++u.count;
    if (u.pids.size() < UnobservedProcesses::kMaxListed) u.pids.push_back(pid);
    if (focus_ || u.errors.size() < kMaxErrors) u.errors.push_back(e);
    note(std::move(e));
  }

  // place_processes: where a process outside our mount namespace is, its NSpid read once.
  void place(std::int32_t pid, int dirfd, const std::string* mount_namespace, int mnt_error) {
    if (!options_.place_processes) return;
    if (auto p = place_process(dirfd, "status", pid, mount_namespace, mnt_error, status_)) {
      scan_.placements.push_back(std::move(*p));
    }
  }

  const ContainerScanOptions& options_;
  const ProcessVisitor& visit_;
  const OwnMounts own_mounts_;
  ContainerScan scan_;
  std::optional<DirIdentity> own_root_;
  ProcReader reader_;
  std::set<std::tuple<std::string, std::uint64_t, std::uint64_t>> seen_;
  bool focus_ = false;  // the process being looked at is focus_pid
  std::string text_, mnt_, status_;
};

}  // namespace

ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options) {
  return scan_container_temp_dirs(options, nullptr);
}

ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options,
                                       const ProcessVisitor& visit) {
  return ContainerScanner(options, visit).run();
}

}  // namespace hsperfguard::platform
