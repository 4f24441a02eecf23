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
// together). Nothing is opened for reading: O_PATH only.
#include "platform/posix/containers_posix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <tuple>

#include "model/procfs_parse.hpp"
#include "platform/containers.hpp"
#include "platform/posix/beneath_posix.hpp"
#include "platform/posix/posix_util.hpp"
#include "platform/posix/procfs_posix.hpp"
#include "platform/posix/safe_path_posix.hpp"

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

}  // namespace

ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options) {
  return scan_container_temp_dirs(options, nullptr);
}

ContainerScan scan_container_temp_dirs(const ContainerScanOptions& options,
                                       const ProcessVisitor& visit) {
  ContainerScan scan;
  std::string text;
  const OwnMounts own_mounts = OwnMounts::read();
  scan.own_mount_namespace = own_mounts.mount_namespace;
  if (readlink_at(AT_FDCWD, "/proc/self/ns/pid", text) == 0) scan.own_pid_namespace = text;
  std::optional<DirIdentity> own_root;
  if (UniqueFd fd(::open("/", kPathDir)); fd.valid()) own_root = identity_of(fd.get());
  if (UniqueFd fd(::open(options.host_temp_dir.c_str(), kPathDir)); fd.valid()) {
    scan.host_temp_dir = identity_of(fd.get());
  }

  bool focus = false;  // the process being looked at is focus_pid
  auto note = [&](ObservationError e) {
    if (focus || scan.errors.size() < kMaxErrors) scan.errors.push_back(std::move(e));
  };
  // A process whose mount namespace or root could not be reached: a container there, if it
  // is one, is not looked into.
  auto unobserved = [&](std::int32_t pid, ObservationError e) {
    UnobservedProcesses& u = scan.unobserved;
    ++u.count;
    if (u.pids.size() < UnobservedProcesses::kMaxListed) u.pids.push_back(pid);
    if (focus || u.errors.size() < kMaxErrors) u.errors.push_back(e);
    note(std::move(e));
  };

  int list_err = 0;
  std::vector<std::int32_t> pids = list_pids("/proc", &list_err);
  if (list_err != 0) scan.errors.push_back(make_error("/proc", "getdents64", list_err));
  if (options.focus_pid) pids.push_back(*options.focus_pid);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());

  ProcReader reader;
  std::set<std::tuple<std::string, std::uint64_t, std::uint64_t>> seen;
  std::string mnt, status;
  // place_processes: where a process outside our mount namespace is, its NSpid read once.
  auto place = [&](std::int32_t pid, int dirfd, const std::string* mount_namespace,
                   int mnt_error) -> const ProcessPlacement* {
    if (!options.place_processes) return nullptr;
    auto p = place_process(dirfd, "status", pid, mount_namespace, mnt_error, status);
    return p ? &scan.placements.emplace_back(std::move(*p)) : nullptr;
  };
  bool stopped = false;
  for (const std::int32_t pid : pids) {
    if (const char* why = options.limits.reached()) {
      stopped = true;
      scan.errors.push_back(ObservationError{"/proc", "scan", EINTR,
                                             std::string("stopped (") + why + "): containers of " +
                                                 std::to_string(&pid - pids.data()) + " of " +
                                                 std::to_string(pids.size()) + " processes looked at"});
      break;
    }
    focus = options.focus_pid == pid;
    const std::string dir_path = "/proc/" + std::to_string(pid);
    UniqueFd dir(::open(dir_path.c_str(), kPathDir));
    if (!dir.valid()) {
      const int e = errno;
      if (!vanished(e)) {
        place(pid, -1, nullptr, e);
        unobserved(pid, make_error(dir_path, "open", e));
      } else if (focus) {
        note(make_error(dir_path, "open", e));
      }
      continue;
    }
    ++scan.processes;
    if (visit && !visit(pid, dir.get()) && !focus) continue;
    // Its link, or (when that needs more than we have) its mountinfo placing it at our root.
    bool at_our_root = false;
    if (const int e = read_mount_namespace(dir.get(), "", own_mounts, mnt, status, &at_our_root); e != 0) {
      if (!vanished(e)) {
        place(pid, dir.get(), nullptr, e);
        unobserved(pid, make_error(dir_path + "/ns/mnt", "readlink", e));
      } else if (focus) {
        note(make_error(dir_path + "/ns/mnt", "readlink", e));
      }
      continue;
    }
    if (at_our_root && !focus) continue;  // our namespace and root: the host's /tmp
    const ProcessPlacement* placed =
        scan.own_mount_namespace != mnt ? place(pid, dir.get(), &mnt, 0) : nullptr;
    // The root, followed: /proc/<pid>/root is a link by design. Opened only for a view not
    // seen before; then it is that directory's identity that counts.
    struct stat root_st {};
    if (::fstatat(dir.get(), "root", &root_st, 0) != 0) {
      const int e = errno;
      if (!vanished(e)) {
        unobserved(pid, make_error(dir_path + "/root", "stat", e));
      } else if (focus) {
        note(make_error(dir_path + "/root", "stat", e));
      }
      continue;
    }
    std::optional<DirIdentity> root_id = DirIdentity{static_cast<std::uint64_t>(root_st.st_dev),
                                                     static_cast<std::uint64_t>(root_st.st_ino)};
    if (!focus && scan.own_mount_namespace == mnt && own_root == root_id) continue;
    if (!focus && seen.contains({mnt, root_id->dev, root_id->ino})) continue;
    UniqueFd root(::openat(dir.get(), "root", kPathDir));
    ObservationError root_err;
    if (!root.valid()) root_err = make_error(dir_path + "/root", "open", errno);
    root_id = root.valid() ? identity_of(root.get(), &root_err, dir_path + "/root") : std::nullopt;
    if (!root_id) {
      if (!vanished(root_err.code)) {
        unobserved(pid, std::move(root_err));
      } else if (focus) {
        note(std::move(root_err));
      }
      continue;
    }
    if (!focus && scan.own_mount_namespace == mnt && own_root == root_id) continue;
    if (!seen.emplace(mnt, root_id->dev, root_id->ino).second && !focus) continue;

    ObservationError err;
    UniqueFd tmp = open_beneath(root.get(), "tmp", kPathDir, &err);
    const std::optional<DirIdentity> tmp_id =
        tmp.valid() ? identity_of(tmp.get(), &err, dir_path + "/root/tmp") : std::nullopt;
    if (!tmp_id) {
      // A root without a /tmp (a distroless image, a kernel thread's) has no namespace to
      // audit; only a refused or unreadable one is worth an error.
      if (tmp.valid() || err.code != ENOENT || focus) {
        err.path = dir_path + "/root/tmp";
        note(std::move(err));
      }
      continue;
    }
    ProcessTempDir& entry = scan.temp_dirs.emplace_back();
    entry.host_pid = pid;
    entry.mount_namespace = mnt;
    entry.temp_dir = *tmp_id;
    entry.passwd = passwd_version(root.get());
    if (readlink_at(dir.get(), "ns/pid", text) == 0) entry.pid_namespace = text;
    if (placed != nullptr) {
      entry.ns_pid = placed->ns_pid;
    } else if (read_proc_file(dir.get(), "status", status) == 0) {
      const auto fields = procfs::parse_status(status);
      if (!fields.ns_pids.empty()) entry.ns_pid = fields.ns_pids.back();
    }
    entry.cgroup = reader.read_cgroup(pid);
  }
  scan.placements_complete = options.place_processes && list_err == 0 && !stopped;
  return scan;
}

}  // namespace hsperfguard::platform
