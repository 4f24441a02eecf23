#include "commands/ps_observation.hpp"

#include <algorithm>
#include <iterator>
#include <memory>
#include <utility>

#include "commands/discovery.hpp"
#include "commands/environment.hpp"
#include "decide/audit.hpp"
#include "decide/discover.hpp"

namespace hsperfguard {
namespace {

// The processes, read in one pass (the containers' views and the JVMs), and the temp roots
// they lead to.
struct ProcessPass {
  std::vector<RootSpec> specs;
  std::vector<JvmProcessFacts> jvms;
  ContainerScan containers;                  // placements, for the liveness of container files
  std::vector<ObservationError> errors;      // reported first
  std::vector<ObservationError> jvm_errors;  // reported after the roots', as they always were
};

ProcessPass observe_processes(const DiscoverOptions& discover, Environment& env) {
  ProcessPass pass;
  if (!wants_container_scan(discover)) {
    pass.jvms = env.observe_jvm_processes(pass.jvm_errors, {}, nullptr);
    pass.specs = discover_roots(discover);
    add_further_temp_dirs(env, discover, pass.specs, pass.jvms, std::nullopt);
    return pass;
  }
  ContainerScanOptions scan_options = container_scan_options(discover);
  scan_options.place_processes = true;  // the liveness of container files, from this pass
  platform::HostProcesses host_processes = env.scan_host_processes(scan_options, pass.jvm_errors);
  const ContainerScan& scan = host_processes.containers;
  if (const UnobservedProcesses& u = scan.unobserved; !u.empty()) {
    // Their maps need the same ptrace access as their namespace: a JVM among them, or in a
    // container of theirs, is not listed. Said first, and the listing is incomplete.
    pass.errors.push_back(ObservationError{
        "/proc", "scan", u.errors.empty() ? 0 : u.errors.front().code,
        std::to_string(u.count) + " process" + (u.count == 1 ? "" : "es") +
            " could not be looked into (mount namespace or root unreadable; without "
            "CAP_SYS_PTRACE, their maps too): a JVM among them or in a container of theirs is "
            "not listed"});
  }
  pass.errors.insert(pass.errors.end(), scan.errors.begin(), scan.errors.end());
  pass.specs = discover_roots(discover, &scan);
  pass.jvms = std::move(host_processes.jvms);
  pass.containers = std::move(host_processes.containers);
  // The -XX:AltTempDir of this host's JVMs and other accounts' temp dirs, after the host's.
  add_further_temp_dirs(env, discover, pass.specs, pass.jvms, std::nullopt);
  return pass;
}

// Whether some of `root`'s files were not looked at: the temp dir not opened or its listing cut
// short (an I/O error), or a namespace or an entry that could not be read, by the audit's count
// (decide's NotLookedAt). Its JVMs may be missing from the list then, and the list says so
// (exit 3). A name gone since it was listed is no gap; nor is a user database that could not
// be read (a row shows the uid), which is the audit's concern, as are processes.
bool read_in_part(const TempRootFacts& root) {
  const auto listing = [&root](const ObservationError& e) { return leaves_unseen(e) && e.path == root.temp_dir; };
  if (!root.opened || std::any_of(root.errors.begin(), root.errors.end(), listing)) return true;
  NotLookedAt missing;
  for (const auto& ns : root.namespaces) missing.add_namespace(ns);
  return missing.namespaces + missing.entries > 0;
}

// The rows of `roots` and `jvms`; with --container, only that container's JVMs.
std::vector<PsRow> rows_of(const std::vector<TempRootFacts>& roots,
                           const std::vector<JvmProcessFacts>& jvms, const PsCommandOptions& options) {
  std::vector<PsRow> rows = ps_rows(roots, jvms, PsOptions{options.all});
  if (options.container_pid && !roots.empty() && roots.front().container) {
    // Only that container's JVMs: its backing files, and processes of its mount namespace.
    const std::string& mnt = roots.front().container->mount_namespace;
    std::erase_if(rows, [&](const PsRow& r) { return !r.mount_namespace || *r.mount_namespace != mnt; });
  }
  return rows;
}

}  // namespace

PsObservation observe_ps(const PsCommandOptions& options, Environment& env) {
  const HostInfo host = env.host();
  DiscoverOptions discover;
  discover.host_temp_dir = env.default_temp_dir();
  discover.containers = !options.no_containers && host.euid == 0;
  discover.container_pid = options.container_pid;
  // The processes first, then the files. A JVM that exits in between keeps its row this
  // once; one that starts in between is judged by its file (and its lock: see below).
  ProcessPass pass = observe_processes(discover, env);

  PsObservation seen{{}, std::move(pass.errors), !pass.containers.unobserved.empty()};
  std::vector<TempRootFacts> roots;
  // The lock state is read only if a row depends on it (see ps_rows_depend_on_locks).
  const std::unique_ptr<RootLivenessSource> liveness = env.ps_liveness(pass.jvms, pass.containers);
  platform::ObserveOptions observe;
  observe.worker_threads = false;
  for (const auto& spec : pass.specs) {
    TempRootFacts& root = roots.emplace_back(observe_whole(env, spec, observe));
    if (container_vanished(root) && !options.container_pid) {
      roots.pop_back();  // the container stopped since discovery
      continue;
    }
    if (read_in_part(root)) seen.incomplete = true;
    seen.errors.insert(seen.errors.end(), root.errors.begin(), root.errors.end());
    // What left a namespace or its files not looked at, one error a namespace, so that the
    // errors say which when the list is incomplete.
    for (const auto& ns : root.namespaces) {
      if (const ObservationError* e = first_unseen_error(ns)) seen.errors.push_back(*e);
    }
    liveness->gather(root);
  }
  seen.errors.insert(seen.errors.end(), pass.jvm_errors.begin(), pass.jvm_errors.end());
  // /proc not listed, or listed in part (an error, or a stop): JVMs without a backing file
  // (blind, invisible) may be missing, as when processes could not be looked into. A process
  // that could not be read (gone, or hiding its maps) is a note.
  if (std::any_of(seen.errors.begin(), seen.errors.end(), [](const ObservationError& e) {
        return e.path == "/proc" && (e.op == "getdents64" || e.op == "scan");
      })) {
    seen.incomplete = true;
  }
  seen.rows = rows_of(roots, pass.jvms, options);
  if (ps_rows_depend_on_locks(seen.rows)) {
    for (auto& root : roots) liveness->gather_locks(root);
    seen.rows = rows_of(roots, pass.jvms, options);
  }
  return seen;
}

}  // namespace hsperfguard
