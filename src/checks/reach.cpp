// A JVM that jps lists and the host cannot attach to, and the command that reaches it
// (checks/reach.hpp; docs/POLICY.md, "Reachable only from its own mount namespace").
#include "checks/reach.hpp"

#include "model/shell_word.hpp"
#include "model/systemd_unit.hpp"

namespace hsperfguard::checks {
namespace {

// The service a JVM runs in: its own cgroup's, its container's, else the one systemd named
// its private /tmp after.
std::optional<std::string> unit_of(const ContainerFacts& container, const ProcessFacts& owner) {
  for (const auto* cgroup : {&owner.cgroup, &container.cgroup}) {
    if (!*cgroup) continue;
    if (auto service = systemd_service_of_cgroup(**cgroup)) return service;
  }
  if (container.systemd_private_dir)
    return systemd_unit_of_private_dir(*container.systemd_private_dir);
  return std::nullopt;
}

}  // namespace

std::string_view to_string(ReachCause cause) {
  switch (cause) {
    case ReachCause::systemd_private_tmp:
      return "systemd-private-tmp";
    case ReachCause::own_mount_namespace:
      return "own-mount-namespace";
  }
  return "own-mount-namespace";
}

const ProcessFacts* backing_file_owner(const LivenessFacts& liveness) {
  for (const auto& p : liveness.candidates) {
    if (p.maps_backing_file.value_or(false)) return &p;
  }
  if (liveness.lock_held.value_or(false) && liveness.lock_holder_pid) {
    for (const auto& p : liveness.candidates) {
      if (p.pid == *liveness.lock_holder_pid) return &p;
    }
  }
  return nullptr;
}

std::optional<ReachDiagnosis> diagnose_reach(const TempRootFacts& root, const ProcessFacts& owner) {
  // A JVM maps its backing file for life; a process that only holds the lock is no JVM to
  // attach to.
  if (root.kind != RootKind::container || !root.container || owner.ns_pids.size() != 1 ||
      owner.pid <= 0 || !owner.maps_backing_file.value_or(false)) {
    return std::nullopt;
  }
  ReachDiagnosis d;
  d.pid = owner.pid;
  d.unit = unit_of(*root.container, owner);
  d.cause = root.container->systemd_private_dir ? ReachCause::systemd_private_tmp
                                                : ReachCause::own_mount_namespace;
  const std::string pid = std::to_string(owner.pid);
  // Verified with JDK 17.0.21 and 25.0.3 (docs/POLICY.md): nsenter into its mount namespace
  // alone, where jcmd finds the socket in the JVM's /tmp. A Linux command on every build: its
  // words are POSIX shell words.
  d.command = "nsenter -t " + pid + " -m -- jcmd " + pid + " VM.version";
  const std::string why =
      ": jps lists it, but JDK 17's jcmd on the host cannot attach (it looks for the JVM's "
      "attach socket in the host's /tmp); reach it with " +
      d.command;
  if (d.cause == ReachCause::systemd_private_tmp) {
    d.explanation = "private /tmp of " +
                    (d.unit ? posix_shell_word(*d.unit) : std::string("a systemd service")) +
                    " (PrivateTmp=)" + why;
  } else {
    d.explanation = "its /tmp is another mount namespace's" +
                    (d.unit ? " (" + posix_shell_word(*d.unit) + ")" : std::string()) +
                    " in this pid namespace (a pod's container seen from a sidecar or a "
                    "kubectl debug container)" +
                    why + ", or kubectl exec into the JVM's container";
  }
  return d;
}

}  // namespace hsperfguard::checks
