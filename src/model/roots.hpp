// Where to look, as data: the container scan's findings (which temp dirs the processes of
// this host see as their /tmp; platform/containers.hpp gathers them) and the temp roots that
// discovery (decide/discover.hpp) chooses from them for observation (platform/observe.hpp).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard {

// One temp dir to observe, as chosen by discover.
struct RootSpec {
  RootKind kind = RootKind::host;
  std::string root = "/";         // system root whose users and temp dir these are
  std::string temp_dir = "/tmp";  // absolute path of the temp dir (inside root for foreign roots)
  std::optional<ContainerFacts> container;
  std::vector<std::string> sharing_mount_namespaces;  // as TempRootFacts
  std::optional<std::string> own_mount_namespace;      // as TempRootFacts
  // The first root of a run scanning every container (not --container's) only: the processes
  // the container scan could not look into (a container among them is neither audited nor
  // reaped).
  UnobservedProcesses unobserved;
  // RootKind::alt_temp_dir: the JVM (the lowest pid of those naming it) whose -XX:AltTempDir
  // this temp dir is.
  std::optional<std::int32_t> alt_temp_dir_pid;
  // RootKind::account_temp_dir: whose temp dir this is.
  std::optional<TempDirAccount> account;
};

// `temp_dir` of the system whose root is `root`, as this host reaches it ("/proc/123/root"
// and "/tmp" give "/proc/123/root/tmp"; root "/" gives temp_dir).
inline std::string reachable_path(std::string_view root, const std::string& temp_dir) {
  while (root.size() > 1 && root.ends_with('/')) root.remove_suffix(1);
  if (root == "/") return temp_dir;
  return std::string(root) + (temp_dir.starts_with('/') ? "" : "/") + temp_dir;
}

// The temp dir of `spec` as this host reaches it: its temp_dir, beneath its root for a
// foreign root or a container.
inline std::string reachable_temp_dir(const RootSpec& spec) {
  if (spec.kind != RootKind::root && spec.kind != RootKind::container) return spec.temp_dir;
  return reachable_path(spec.root, spec.temp_dir);
}

// `path`, beneath the temp dir this host reaches as `reached`, as its own system names it
// (beneath `temp_dir`): "/proc/123/root/tmp/x" is "/tmp/x" in the container. nullopt when
// `path` is not beneath `reached`.
inline std::optional<std::string> path_inside_root(std::string_view path, std::string_view reached,
                                                   const std::string& temp_dir) {
  if (!path.starts_with(reached)) return std::nullopt;
  const std::string_view rest = path.substr(reached.size());
  if (!rest.empty() && rest.front() != '/') return std::nullopt;
  return temp_dir + std::string(rest);
}

struct DirIdentity {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  friend bool operator==(const DirIdentity&, const DirIdentity&) = default;
};

// A file as it is now: which one (dev, ino) and what changes when it is written (size, mtime,
// ctime: a write moves ctime, and nobody can set ctime back). Equal versions, equal contents.
struct FileVersion {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0, mtime_nsec = 0, ctime_sec = 0, ctime_nsec = 0;
  friend auto operator<=>(const FileVersion&, const FileVersion&) = default;
};

// The /tmp one process sees (the first process seen of its mount namespace and root).
struct ProcessTempDir {
  std::int32_t host_pid = 0;
  std::string mount_namespace;               // "mnt:[4026532123]"
  std::optional<std::string> pid_namespace;  // "pid:[4026532125]"
  std::optional<std::string> cgroup;
  DirIdentity temp_dir;
  // Its root's etc/passwd when that is a regular file, as the scan saw it (held, never opened):
  // discovery puts the roots that share one next to each other, so that a run parses each
  // passwd file once whatever order their processes have.
  std::optional<FileVersion> passwd;
};

// A process outside our own mount namespace, placed for liveness in containers: the mount
// namespace it is in and its innermost pid (a container's files are named by those).
struct ProcessPlacement {
  std::int32_t host_pid = 0;
  std::optional<std::string> mount_namespace;  // nullopt: its link could not be read (mnt_error)
  std::optional<std::int32_t> ns_pid;  // the last NSpid field; nullopt: no NSpid (status_error)
  int mnt_error = 0;                   // errno of readlink <pid>/ns/mnt (or of opening /proc/<pid>)
  int status_error = 0;                // errno of reading <pid>/status
};

// A directory of the host's temp dir that systemd made for a service's PrivateTmp=
// ("systemd-private-*"), and the identity of its "tmp", the service's /tmp.
struct SystemdPrivateTmp {
  std::string name;
  DirIdentity temp_dir;
};

// Windows: a temp dir of an account other than this run's, as observed
// (platform/files.hpp, observe_account_temp_dirs): a service account's profile temp dir, or the
// one a running JVM's environment names. Each account has its own temp dir there, and jps run
// as one account lists the namespaces of its own only.
struct AccountTempDir {
  TempDirAccount account;
  std::string path;
  std::optional<DirIdentity> identity;  // nullopt: it exists and could not be opened
};
struct AccountTempDirs {
  std::optional<DirIdentity> host_temp_dir;  // of this run's own temp dir, when it was opened
  std::vector<AccountTempDir> dirs;          // services first, then JVMs' in pid order
};

struct ContainerScan {
  std::optional<std::string> own_mount_namespace;
  std::optional<std::string> own_pid_namespace;
  std::optional<DirIdentity> host_temp_dir;  // of the host temp dir this scan compared with
  std::vector<ProcessTempDir> temp_dirs;     // in pid order
  // The host temp dir's root-owned systemd-private-* directories with their tmp's identity
  // (listed only when a process of our pid namespace has a /tmp in another mount namespace);
  // discovery names a scanned /tmp after the one whose identity it has.
  std::vector<SystemdPrivateTmp> systemd_private_tmps;
  std::size_t processes = 0;                 // processes looked at
  // Processes whose mount namespace, root or /tmp could not be reached (not gone).
  UnobservedProcesses unobserved;
  std::vector<ObservationError> errors;      // the first few, and always focus_pid's
  // ContainerScanOptions::place_processes: every process outside own_mount_namespace, in pid
  // order; complete when every listed process was looked at (no listing error, no stop).
  std::vector<ProcessPlacement> placements;
  bool placements_complete = false;
};

struct ContainerScanOptions {
  std::string host_temp_dir = "/tmp";
  // --container PID: this process always has its own entry (even where it shares its view
  // with an earlier process, or with us), and its errors are always reported. Every other
  // process is still looked at: those sharing its /tmp are liveness candidates too.
  std::optional<std::int32_t> focus_pid;
  // Checked before each process: once reached, the scan stops and its errors say so.
  RunLimits limits;
  // Also place every process outside our mount namespace (ContainerScan::placements), for a
  // liveness gatherer that adopts them instead of passing over /proc again (ps).
  bool place_processes = false;
};

}  // namespace hsperfguard
