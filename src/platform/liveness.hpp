// Liveness evidence, the neutral interface: who holds a backing file's lock, and what the
// processes that could own it look like. Observes, never judges (decide/liveness.hpp judges).
//
// One LivenessGatherer per run: the lock table (/proc/locks) is read once, when it is first
// needed, and each process is read once however many files name it. Construct it after the
// namespaces were listed, so that every listed file that was locked then is seen locked.
// The evidence is a snapshot: whoever acts on it (the reaper) must re-check under the file's
// own flock before unlinking.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "model/facts.hpp"
#include "model/roots.hpp"
#include "model/run_limits.hpp"

namespace hsperfguard::platform {

struct LivenessOptions {
  // Read held locks from the lock table, which never takes a lock. false, or a table that
  // cannot be read, falls back to probing each regular file with a non-blocking exclusive
  // lock released at once (lock_source "probe"): a JVM starting at that very instant with
  // the same file would then run without shared memory, so the probe is a fallback only.
  bool use_lock_table = true;
  // false: gather() leaves the lock state unknown (lock_source "none") and gather_locks()
  // adds it later, for a caller that needs it only where a verdict depends on it. Reading
  // /proc/locks makes the kernel wait for an RCU grace period (its iterator takes the file
  // lock rwsem for writing): milliseconds, more than the rest of a `ps`. Windows ignores
  // this: its lock evidence (a named mapping) is always gathered.
  bool lock_state = true;
  // Checked while a process's maps are read (POSIX: up to 16 MiB each): once reached, what
  // is left of them is not read, and they prove no file unmapped.
  RunLimits limits{};
};

// How the names of a namespace map to processes.
struct LivenessScope {
  RootKind kind = RootKind::host;
  // For RootKind::container: the container's mount namespace ("mnt:[4026532123]"). Names
  // are then pids inside the container, matched to host processes by the last NSpid field.
  std::optional<ContainerFacts> container;
  // Further mount namespaces whose /tmp this is (TempRootFacts::sharing_mount_namespaces):
  // their processes are candidates too, by the last NSpid field.
  std::vector<std::string> sharing_mount_namespaces;
};

// The scope of the namespaces of `root`, from its kind, container and sharing namespaces.
inline LivenessScope liveness_scope_of(const TempRootFacts& root) {
  LivenessScope scope;
  scope.kind = root.kind;
  scope.container = root.container;
  scope.sharing_mount_namespaces = root.sharing_mount_namespaces;
  return scope;
}

class LivenessGatherer {
 public:
  explicit LivenessGatherer(LivenessOptions options = {});
  ~LivenessGatherer();
  LivenessGatherer(const LivenessGatherer&) = delete;
  LivenessGatherer& operator=(const LivenessGatherer&) = delete;

  // Fills `liveness` of every file of `ns` that was stat'ed: lock state for all of them;
  // candidates for names that denote a pid (canonical or not). Run-level problems (an
  // unreadable lock table, a namespace that changed identity) go into ns.errors.
  void gather(NamespaceFacts& ns, const LivenessScope& scope);
  // Fills `attach.liveness`: the processes, in every pid namespace whose processes use the
  // temp dir of `scope`, whose own pid is the attach file's, and whether that search was
  // complete (the same scope and completeness a backing file of that temp dir gets).
  void gather(AttachFacts& attach, const LivenessScope& scope);
  // Every namespace of a temp root, with the scope its kind and container imply.
  void gather(TempRootFacts& root);
  // The lock state of every file of `root` that gather() saw but left without one
  // (LivenessOptions::lock_state false), by the table or the probe as configured.
  void gather_locks(TempRootFacts& root);

  // JVMs this run already read (ps reads them in its pass over the processes, before the
  // files): their facts and maps stand for them here instead of being read again. Linux
  // only (mapped_files); elsewhere nothing is adopted.
  void adopt(const std::vector<JvmProcessFacts>& jvms);
  // The placements of a scan made with ContainerScanOptions::place_processes (ps): the
  // processes of a container's mount namespace come from them instead of a pass over /proc
  // of the gatherer's own. Linux only.
  void adopt(const ContainerScan& placed);

  // What observe_process says about `pid`, read once per gatherer. The backing-file
  // question (maps_backing_file) is answered per file by gather(), not here. Valid until the
  // next call (the facts of a gone pid are not kept).
  const ProcessFacts& process(std::int32_t pid);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hsperfguard::platform
