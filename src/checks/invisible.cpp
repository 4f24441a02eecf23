// The diagnosis of an invisible JVM (checks/invisible.hpp): its cause, from the facts and
// the publication prediction of its namespace.
#include "checks/invisible.hpp"

#include "checks/evidence.hpp"
#include "checks/publication.hpp"
#include "model/pid_name.hpp"

namespace hsperfguard::checks {
namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The lock on the file named after the JVM's pid in its namespace, when another process
// holds it: JDK-8286030 makes the JVM give up the name ("it is locked by another process").
const FileFacts* locked_name(const JvmProcessFacts& jvm, const NamespaceFacts& ns) {
  const std::int32_t own = jvm.process.ns_pids.empty() ? jvm.process.pid : jvm.process.ns_pids.back();
  const std::string name = pid_to_filename(own);
  for (const auto& file : ns.files) {
    if (file.name != name || !file.liveness || !file.liveness->lock_held.value_or(false)) continue;
    if (file.liveness->lock_holder_pid && *file.liveness->lock_holder_pid == jvm.process.pid) continue;
    return &file;
  }
  return nullptr;
}

}  // namespace

std::string_view to_string(InvisibleCause cause) {
  switch (cause) {
    case InvisibleCause::backing_file_deleted: return "backing-file-deleted";
    case InvisibleCause::perf_data_disabled: return "perf-data-disabled";
    case InvisibleCause::namespace_refused: return "namespace-refused";
    case InvisibleCause::create_failed: return "create-failed";
    case InvisibleCause::locked_by_another_jvm: return "locked-by-another-jvm";
    case InvisibleCause::undetermined: return "undetermined";
  }
  return "undetermined";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

InvisibleDiagnosis diagnose_invisible(const JvmProcessFacts& jvm, const TempRootFacts& root,
                                      const NamespaceFacts* ns) {
  InvisibleDiagnosis d;
  const std::string where = ns != nullptr ? printable(ns->path) : "its namespace";
  if (jvm.backing_file_deleted) {
    d.cause = InvisibleCause::backing_file_deleted;
    if (jvm.mapped_backing_file) d.details.push_back(printable(*jvm.mapped_backing_file));
    d.explanation = "its backing file " + (jvm.mapped_backing_file ? printable(*jvm.mapped_backing_file) : "") +
                    " was deleted while it runs (a tmp cleaner such as systemd-tmpfiles' age rule or "
                    "tmpwatch): jps and jstat find JVMs by that file; `hsperfguard inspect PID` still "
                    "reads its counters as root";
    d.fix = "keep cleaners away from the JVM's pid-named files (the tmpfiles.d snippet hsperfguard ships, "
            "/usr/lib/tmpfiles.d/hsperfguard.conf, which keeps /tmp/hsperfdata_*/<pid> and nothing else a "
            "user puts there), then restart the JVM to publish again";
    return d;
  }
  if (jvm.perf_data && jvm.perf_data->disables) {
    d.cause = InvisibleCause::perf_data_disabled;
    d.details.push_back(jvm.perf_data->flag);
    d.details.push_back(jvm.perf_data->source);
    d.explanation = "it was started with " + printable(jvm.perf_data->flag) + " (" +
                    printable(jvm.perf_data->source) + "): it publishes no counters, deliberately";
    d.fix = "remove " + printable(jvm.perf_data->flag) + " from " + printable(jvm.perf_data->source) +
            " and restart the JVM if it is to be monitored";
    return d;
  }
  const PublicationPrediction p =
      ns != nullptr ? predict_publication(root, *ns) : predict_new_namespace(root, jvm.process.effective_uid == 0u);
  if (!p.refusals.empty()) {
    d.cause = InvisibleCause::namespace_refused;
    d.details = p.refusals;
    d.explanation = "HotSpot refuses namespace " + where + " (" + joined(p.refusals) +
                    ") and silently runs without shared performance data";
    d.fix = "fix the namespace (`hsperfguard audit` says how; `hsperfguard repair` fixes modes and "
            "ACLs, never an owner), then restart the JVM";
    return d;
  }
  if (ns != nullptr) {
    if (const FileFacts* file = locked_name(jvm, *ns)) {
      d.cause = InvisibleCause::locked_by_another_jvm;
      d.details.push_back(printable(file->path));
      d.lock_holder = file->liveness->lock_holder_pid;
      d.explanation = "its backing file name " + printable(file->path) + " is locked by another process" +
                      (d.lock_holder ? " (pid " + std::to_string(*d.lock_holder) + ")" : "") +
                      ", a JVM with the same pid in another pid namespace sharing this /tmp (JDK-8286030)";
      d.fix = "give the containers separate /tmp directories (or pid namespaces whose pids do not "
              "collide in a shared one), then restart the JVM";
      return d;
    }
  }
  if (!p.create_failures.empty()) {
    d.cause = InvisibleCause::create_failed;
    d.details = p.create_failures;
    d.explanation = "HotSpot accepts " + where + " but cannot make its " + std::to_string(p.region_bytes) +
                    "-byte backing file there (" + joined(p.create_failures) + ")";
    d.fix = "give the user read, search and write access to its namespace, and the file system "
            "space, inodes and write access, then restart the JVM";
    return d;
  }
  d.cause = InvisibleCause::undetermined;
  d.explanation = "nothing observed now explains it: " + where +
                  " accepts a JVM today (it may have changed since this JVM started), or a flag was "
                  "set where it is not read (an @argfile, -XX:Flags, -XX:VMOptionsFile)";
  d.fix = "restart the JVM and run `hsperfguard audit` if it stays invisible";
  return d;
}

}  // namespace hsperfguard::checks
