// Which temp dirs to look at: the host's, one given on the command line, a foreign system
// root, and every container's. Pure: it only decides, observation looks (the container
// scan, platform/containers.hpp, is handed in; commands/discovery.hpp runs both).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"
#include "model/roots.hpp"

namespace hsperfguard {

struct DiscoverOptions {
  std::optional<std::string> tmpdir;  // --tmpdir DIR: a temp dir of this host
  std::optional<std::string> root;    // --root DIR: DIR is the root of a system
  std::string host_temp_dir;          // the platform's default ("/tmp")
  // Containers: every distinct /tmp of another mount namespace (the default as root, with
  // neither --tmpdir nor --root; --no-containers turns it off).
  bool containers = false;
  // --container PID: only the temp dir of PID's root, as a container (no host root).
  std::optional<std::int32_t> container_pid;
  // --containers-only: every container temp dir and no temp dir of our own mount namespace.
  // In a pod with the node's pid namespace our /tmp is the pod's, and the node's /tmp is the
  // temp dir of the node's processes' mount namespace, found by the scan as a container's.
  bool containers_only = false;
  // Containers were asked for (the default, no --no-containers) and are not scanned because
  // the scan needs root: what the run did not look at (NotLookedAt::containers_not_scanned).
  bool containers_need_root = false;
};

// Whether the options ask for a container scan at all (then pass one to discover_roots).
bool wants_container_scan(const DiscoverOptions& options);
// The scan's options for `options`.
ContainerScanOptions container_scan_options(const DiscoverOptions& options);

// The temp roots, host (or --tmpdir, --root; none with containers_only) first, then one per
// distinct container temp dir in the order of the host pids that reach them, except that those
// whose etc/passwd is one file (ProcessTempDir::passwd) come one after another, where the first
// of them was (a run parses each passwd once, however its roots alternate). Container temp dirs are told apart by
// the (dev, ino) of the directory: one shared by several mount namespaces is one root whose
// sharing_mount_namespaces name the others; the host's own temp dir is never a container
// root, but the other mount namespaces that share it are named in the host root's
// sharing_mount_namespaces (any of their processes may be in another pid namespace).
std::vector<RootSpec> discover_roots(const DiscoverOptions& options,
                                     const ContainerScan* scan = nullptr);

// Whether the run looks with the host's own view: neither --tmpdir, --root, --container nor
// --containers-only. Only such a run also looks where this host's JVMs and accounts publish
// (alt_temp_dir_roots, account_temp_dir_roots).
bool host_view(const DiscoverOptions& options);

// The temp dirs that JVMs of our own mount namespace name with -XX:AltTempDir (absolute, as
// HotSpot requires), one root each (kind alt_temp_dir, named by the lowest pid naming it), in
// path order, except those that are already among `specs` (the host's /tmp) by path. Only
// with the host's own view (neither --tmpdir, --root, --container nor --containers-only): a
// JVM in another mount namespace names a directory of its own view, not looked at here.
std::vector<RootSpec> alt_temp_dir_roots(const DiscoverOptions& options, const std::vector<RootSpec>& specs,
                                         const std::vector<JvmProcessFacts>& jvms);

// The temp dirs of other accounts than this run's (Windows; `dirs` as observed, services
// first), one root each (kind account_temp_dir), after those of `specs`, except one that is
// this run's own temp dir or an earlier one's (the same identity, or, without one, the same
// path without regard to case: Windows names a directory by many paths, 8.3 names among
// them). With `user` (--user), only that account's. Only with the host's own view (neither
// --tmpdir, --root, --container nor --containers-only).
std::vector<RootSpec> account_temp_dir_roots(const DiscoverOptions& options, const std::vector<RootSpec>& specs,
                                             const AccountTempDirs& dirs,
                                             const std::optional<std::string>& user = std::nullopt);

// A container root that could not be opened because its process exited after discovery (a
// container stopping during the run): nothing is left to look at there, and it does not make
// the run incomplete. Callers drop such a root.
bool container_vanished(const TempRootFacts& root);

// Whether `error` says that the process of the container `root` is gone: its root
// (/proc/<pid>/root) could not be opened again, ENOENT or ESRCH. A container that stops after
// its namespaces were observed (before its attach files were) leaves such an error, which is
// dropped: nothing is left to look at there. Any other error of its root (EACCES) stays one.
bool container_gone(const TempRootFacts& root, const ObservationError& error);

}  // namespace hsperfguard
