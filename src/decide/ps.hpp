// `hsperfguard ps`: every JVM of the host, across users and containers, from facts. Pure: the
// rows come from observed temp roots (with liveness evidence and regions) and the observed
// JVM processes; nothing here touches the OS, so tests build both by hand.
//
// A row is a JVM or a backing file:
//   live/unknown/...  a backing file in some temp root, with its verdict, and the process
//                     that owns it when one was found (maps it, or holds its lock);
//   blind             a live process that maps libjvm but no backing file: invisible to jps
//                     and jstat, its reason one of checks::InvisibleCause (perf-data-disabled,
//                     namespace-refused, create-failed, locked-by-another-jvm,
//                     namespace-changed, undetermined, no-passwd-entry);
//   deleted           a JVM whose backing file was deleted while it runs (reason
//                     backing-file-deleted): invisible too, its counters still readable as root;
//   unlisted          a JVM that maps a backing file that no temp root looked at holds (its
//                     temp dir was not looked at);
//   openj9            an OpenJ9 JVM (it maps libj9vm<NN>.so), reason no-hsperfdata: it writes
//                     none by design, and is never an invisible HotSpot.
// A live row of a JVM in our pid namespace whose /tmp is another mount namespace's (systemd's
// PrivateTmp=, a pod's sidecar) also says why the host's attach misses it and what reaches it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard {

struct PsRow {
  std::optional<std::int32_t> host_pid;
  std::optional<std::int32_t> ns_pid;  // the pid inside the JVM's pid namespace (the file name)
  std::optional<std::string> user;
  RootKind root_kind = RootKind::host;  // where its backing file is; blind: host or container
  std::optional<std::string> mount_namespace;  // containers (and processes seen elsewhere)
  std::optional<std::string> cgroup;
  std::optional<std::string> main;        // sun.rt.javaCommand: main class or jar, arguments
  std::optional<std::string> command_line;  // blind and unlisted JVMs: /proc/<pid>/cmdline
  std::optional<std::string> vm_version;  // java.property.java.vm.version
  std::optional<std::int64_t> start_time_ms;  // createVmBeginTime, else the process start
  std::optional<std::string> backing_file;
  // A liveness verdict ("live", "stale", ...), "blind", "deleted", "unlisted" or "openj9".
  std::string state;
  std::string reason;  // the verdict's reason ("lock-held"), the invisible JVM's cause, ...
  // Invisible JVMs: the cause's details, a line a person understands, and the fix.
  std::vector<std::string> details;
  std::optional<std::int32_t> lock_holder_pid;
  std::optional<std::string> explanation;
  std::optional<std::string> fix;
  // A live JVM that jps lists but the host's attach misses, its /tmp another mount namespace's
  // (checks/reach.hpp): the cause ("systemd-private-tmp", "own-mount-namespace"), the systemd
  // service it runs in, a line a person understands and the command that reaches it.
  std::optional<std::string> reach_cause;
  std::optional<std::string> unit;
  std::optional<std::string> reach_explanation;
  std::optional<std::string> reach_command;
};

struct PsOptions {
  // Also files that no live JVM owns (stale, pid-reused, foreign). Default: live and
  // unknown files, blind and unlisted JVMs.
  bool all = false;
};

// Rows ordered: by root (host first), then user, then pid; blind and unlisted JVMs last.
std::vector<PsRow> ps_rows(const std::vector<TempRootFacts>& roots,
                           const std::vector<JvmProcessFacts>& jvms, const PsOptions& options);

// Whether rows made without the lock state (lock_source "none") could change with it. A
// file without it is never judged stale, pid-reused or foreign, so every file has a row; one
// that is "live" because the process it names maps it keeps its row whatever the lock (a
// held one would only rename the reason "lock-held"); any other file row may change, and so
// may every invisible JVM's (its diagnosis asks who holds its name's lock).
bool ps_rows_depend_on_locks(const std::vector<PsRow>& rows);

// Whether `jvm`'s namespace would be in `root`: the temp root whose directory is its /tmp.
bool jvm_uses_temp_root(const JvmProcessFacts& jvm, const TempRootFacts& root);

// Puts every invisible JVM into the invisible_jvms of the namespace HotSpot would have used for
// it (hsperfdata_<its user> in the temp root whose directory is its /tmp), or of that temp
// root when the namespace does not exist or its uid has no user name to name one after.
void assign_invisible_jvms(std::vector<TempRootFacts>& roots, const std::vector<JvmProcessFacts>& jvms);
// The same for one namespace of `root` (a streamed audit has one namespace at a time).
void assign_invisible_jvms(const TempRootFacts& root, NamespaceFacts& ns,
                           const std::vector<JvmProcessFacts>& jvms);

}  // namespace hsperfguard
