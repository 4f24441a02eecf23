// The diagnosis of an invisible JVM (checks/invisible.hpp): its cause, from the facts and
// the publication prediction of its namespace.
#include "checks/invisible.hpp"

#include "checks/evidence.hpp"
#include "checks/publication.hpp"
#include "model/pid_name.hpp"
#include "model/rule_catalog.hpp"
#include "model/verdict.hpp"

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
    case InvisibleCause::namespace_changed: return "namespace-changed";
    case InvisibleCause::undetermined: return "undetermined";
    case InvisibleCause::no_passwd_entry: return "no-passwd-entry";
  }
  return "undetermined";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

std::string_view audit_rule_of(InvisibleCause cause) {
  switch (cause) {
    case InvisibleCause::backing_file_deleted: return "jvm.backing-file-deleted";
    case InvisibleCause::perf_data_disabled: return "jvm.perf-data-disabled";
    case InvisibleCause::namespace_refused: return "namespace.jvm-blinded";
    case InvisibleCause::create_failed: return "jvm.create-failed";
    case InvisibleCause::locked_by_another_jvm: return "jvm.locked-by-another-jvm";
    case InvisibleCause::namespace_changed: return "jvm.namespace-changed";
    case InvisibleCause::undetermined: return "jvm.cause-undetermined";
    case InvisibleCause::no_passwd_entry: return "jvm.no-passwd-entry";
  }
  return "jvm.cause-undetermined";  // GCOVR_EXCL_LINE: after a switch over every enumerator
}

std::string invisible_finding_path(const JvmProcessFacts& jvm, const TempRootFacts& root,
                                   const NamespaceFacts* ns) {
  if (ns != nullptr) return ns->path;
  const std::string& temp_dir = root.shown_temp_dir();
  if (jvm.no_user_entry) return temp_dir;  // no name, no namespace: the temp dir it would be in
  return temp_dir + (temp_dir.ends_with('/') ? "" : "/") + "hsperfdata_" + jvm.user.value_or("?");
}

namespace {

InvisibleDiagnosis diagnose(const JvmProcessFacts& jvm, const TempRootFacts& root, const NamespaceFacts* ns) {
  InvisibleDiagnosis d;
  const std::string where = ns != nullptr ? printable(ns->path) : "its namespace";
  if (jvm.backing_file_deleted) {
    d.cause = InvisibleCause::backing_file_deleted;
    if (jvm.mapped_backing_file) d.details.push_back(printable(*jvm.mapped_backing_file));
    d.explanation = "its backing file " + (jvm.mapped_backing_file ? printable(*jvm.mapped_backing_file) : "") +
                    " was deleted while it runs (a tmp cleaner such as systemd-tmpfiles' age rule or "
                    "tmpwatch): jps and jstat find JVMs by that file; `hsperfguard inspect PID` still "
                    "reads its counters as root";
    return d;
  }
  if (jvm.perf_data && jvm.perf_data->disables) {
    d.cause = InvisibleCause::perf_data_disabled;
    d.details.push_back(jvm.perf_data->flag);
    d.details.push_back(jvm.perf_data->source);
    d.explanation = "it was started with " + printable(jvm.perf_data->flag) + " (" +
                    printable(jvm.perf_data->source) + "): it publishes no counters, deliberately";
    return d;
  }
  // HotSpot names its namespace after the effective uid's user name (getpwuid_r in the JVM's
  // own root) and, when there is none, gives up shared memory before it looks at any
  // directory: no namespace exists to predict, and every restart under that uid does the same.
  if (jvm.no_user_entry) {
    d.cause = InvisibleCause::no_passwd_entry;
    const auto id = jvm.process.effective_uid ? jvm.process.effective_uid : jvm.process.real_uid;
    const std::string uid = id ? std::to_string(*id) : "?";
    d.details.push_back("uid " + uid);
    d.explanation = "its effective uid " + uid +
                    " has no entry in the user database of its own root: HotSpot names its namespace "
                    "hsperfdata_<user name> and, with no name, makes no namespace and runs without shared "
                    "performance data (a restart under the same uid does the same)";
    return d;
  }
  const PublicationPrediction p =
      ns != nullptr ? predict_publication(root, *ns) : predict_new_namespace(root, jvm.process.effective_uid == 0u);
  if (!p.refusals.empty()) {
    d.cause = InvisibleCause::namespace_refused;
    d.details = p.refusals;
    d.explanation = "HotSpot refuses namespace " + where + " (" + joined(p.refusals) +
                    ") and silently runs without shared performance data";
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
      return d;
    }
  }
  if (!p.create_failures.empty()) {
    d.cause = InvisibleCause::create_failed;
    d.details = p.create_failures;
    d.explanation = "HotSpot accepts " + where + " but cannot make its " + std::to_string(p.region_bytes) +
                    "-byte backing file there (" + joined(p.create_failures) + ")";
    return d;
  }
  // HotSpot judges its namespace once, at start: a JVM it blinded stays blind after the cause
  // is fixed (repair's chmod of a 0777 namespace, an owner put back), and nothing observed now
  // explains it. A namespace whose inode changed after the JVM started says that much: its
  // ctime moves with every chmod, chown, ACL change and entry made or removed, and cannot be
  // set from user space. The JVM's start is known to the second (the kernel's boot time), so
  // only a change later than the liveness tolerance counts. POSIX only: Windows has no ctime
  // that a change of the security descriptor moves for certain.
  if (ns != nullptr && root.platform == Platform::posix && jvm.process.start_time_ms) {
    const InodeFacts* dir = judged_inode(ns->opened, ns->lstat);
    const std::int64_t started = *jvm.process.start_time_ms;
    if (dir != nullptr && dir->ctime.millis() > started + LivenessSettings{}.start_time_tolerance_ms) {
      d.cause = InvisibleCause::namespace_changed;
      d.namespace_changed_ms = dir->ctime.millis();
      d.jvm_started_ms = started;
      d.explanation = "the namespace " + where +
                      " changed after the JVM started (its ctime is later than the JVM's start): "
                      "the cause may have been fixed since, and HotSpot looks at its namespace only "
                      "when it starts";
      return d;
    }
  }
  d.cause = InvisibleCause::undetermined;
  const bool unchanged = ns != nullptr && root.platform == Platform::posix && jvm.process.start_time_ms;
  d.explanation = "nothing observed now explains it: " + where + " accepts a JVM today" +
                  (unchanged ? " and has not changed since this JVM started"
                             : " (it may have changed since this JVM started)") +
                  ", or a flag was set where it is not read (an @argfile, -XX:Flags, -XX:VMOptionsFile)";
  return d;
}

}  // namespace

// The fix is the catalogue's, never a sentence of its own: `ps`, `inspect` and the audit say
// the same thing about the same JVM.
InvisibleDiagnosis diagnose_invisible(const JvmProcessFacts& jvm, const TempRootFacts& root,
                                      const NamespaceFacts* ns) {
  InvisibleDiagnosis d = diagnose(jvm, root, ns);
  if (const RuleInfo* rule = find_rule(audit_rule_of(d.cause)))
    d.fix = remediation_for(*rule, invisible_finding_path(jvm, root, ns));
  return d;
}

}  // namespace hsperfguard::checks
