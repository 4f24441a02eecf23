// A JVM that jps lists and the host cannot attach to, and the command that reaches it
// (checks/reach.hpp; docs/POLICY.md, "Reachable only from its own mount namespace").
#include "checks/reach.hpp"

#include "checks/evidence.hpp"
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
    case ReachCause::other_temp_dir:
      return "other-account-temp-dir";
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

namespace {

// A JVM in another account's temp dir (Windows). HotSpot makes its namespace in the temp dir
// its own environment names (os::get_temp_directory, GetTempPath: TMP, TEMP, USERPROFILE), and
// so does a jps or jcmd look for namespaces in its own: run as this run's account, they look
// elsewhere.
std::optional<ReachDiagnosis> other_temp_dir(const TempRootFacts& root, const ProcessFacts& owner) {
  if (!root.account || owner.pid <= 0 || !owner.maps_backing_file.value_or(false)) return std::nullopt;
  ReachDiagnosis d;
  d.cause = ReachCause::other_temp_dir;
  d.pid = owner.pid;
  const std::string dir = printable(root.shown_temp_dir());
  const std::string account = root.account->name.empty() ? std::string("its account")
                                                         : "account " + printable(root.account->name);
  // PowerShell, the prompt the Windows remedies name: TMP for the jps it starts, which then
  // looks in that temp dir; -J-XX:-UsePerfData so that it neither publishes nor deletes there.
  d.command = "$env:TMP = " + powershell_word(root.shown_temp_dir()) + "; jps -l -J-XX:-UsePerfData";
  const std::string whose = root.account->jvm_pid
                                ? "in the temp dir its own TMP names (" + dir + ", " + account + "'s)"
                                : "in the temp dir of " + account + " (" + dir + "), a service account's";
  d.explanation = whose +
                  ", not this run's: jps, jstat and jcmd list only the namespaces of the temp dir "
                  "their own TMP, TEMP or USERPROFILE names, so run with another they do not list it; "
                  "run them as " + account + ", or list it with " + d.command;
  return d;
}

}  // namespace

std::optional<ReachDiagnosis> diagnose_reach(const TempRootFacts& root, const ProcessFacts& owner) {
  if (root.kind == RootKind::account_temp_dir) return other_temp_dir(root, owner);
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
