// Why a live JVM that jps lists cannot be attached to from the host, and the command that
// reaches it: a JVM in our pid namespace whose /tmp is not ours (systemd's PrivateTmp=, a
// pod's container seen from a sidecar or a `kubectl debug` container that shares its pid
// namespace). jps finds its backing file through /proc/<pid>/root/tmp, but an attach whose
// target has the same pid here as in its own namespace looks for the .java_pid socket in our
// /tmp (JDK 17's jcmd; JDK-8327114 changed that later). Decided once, from facts, for `ps`
// (its row's reach) and the audit (jvm.own-mount-namespace). On Windows, a JVM that publishes
// in another account's temp dir (a service's, or the one its own TMP names): jps, jstat and
// jcmd list the namespaces of the temp dir their own environment names only (GetTempPath), so
// run as another account they do not list it (jvm.other-account-temp-dir). An analysis: it
// emits no finding. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/facts.hpp"

namespace hsperfguard::checks {

enum class ReachCause {
  systemd_private_tmp,  // its /tmp is a systemd-private-*/tmp of the host's temp dir
  own_mount_namespace,  // another mount namespace sharing our pid namespace (a pod's sidecar)
  other_temp_dir,       // Windows: another account's temp dir (RootKind::account_temp_dir)
};
std::string_view to_string(ReachCause cause);

struct ReachDiagnosis {
  ReachCause cause = ReachCause::own_mount_namespace;
  std::int32_t pid = 0;             // the JVM, here and in its own pid namespace alike
  std::optional<std::string> unit;  // the systemd service it runs in, when known (raw bytes)
  std::string explanation;          // one line a person understands
  // What reaches it from the host, its names shell words: "nsenter -t PID -m -- jcmd PID
  // VM.version" (run as root); on Windows a PowerShell line that lists it with jps.
  std::string command;
};

// The process that owns a backing file: one that maps it, else the holder of its lock;
// nullptr when the evidence names none.
const ProcessFacts* backing_file_owner(const LivenessFacts& liveness);

// `owner`: the live process that owns a backing file in `root`. nullopt unless root is a
// container's /tmp and the owner, mapping the file, is in our pid namespace (one NSpid
// field): only then does the host see its pid and not its /tmp; or root is another account's
// temp dir (Windows) and the owner maps the file.
std::optional<ReachDiagnosis> diagnose_reach(const TempRootFacts& root, const ProcessFacts& owner);

}  // namespace hsperfguard::checks
