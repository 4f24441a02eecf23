// jvm.*: live JVMs that publish no counters jps and jstat can find, each diagnosed once
// (checks/invisible.hpp) and reported by the rule of its cause, one finding per JVM. A JVM
// whose namespace HotSpot refuses is namespace.jvm-blinded's (namespace.cpp), raised once for
// its namespace. And jvm.own-mount-namespace: a live JVM that jps lists but the host cannot
// attach to, its /tmp another mount namespace's (checks/reach.hpp), one finding per backing file;
// jvm.other-account-temp-dir: one in another account's temp dir (Windows), which jps run as
// another account does not list.
#include <optional>
#include <string>

#include "checks/evidence.hpp"
#include "checks/invisible.hpp"
#include "checks/reach.hpp"
#include "checks/rules.hpp"

namespace hsperfguard::checks {
namespace {

nlohmann::json invisible_jvm_evidence(const JvmProcessFacts& jvm, const InvisibleDiagnosis& d) {
  nlohmann::json e = {{"pid", jvm.process.pid},
                      {"reason", std::string(to_string(d.cause))},
                      {"details", nlohmann::json::array()},
                      {"explanation", printable(d.explanation)},
                      {"fix", printable(d.fix)}};
  for (const auto& detail : d.details) e["details"].push_back(printable(detail));
  if (!jvm.process.ns_pids.empty()) e["ns_pid"] = jvm.process.ns_pids.back();
  if (jvm.process.mount_namespace) e["mount_namespace"] = printable(*jvm.process.mount_namespace);
  if (jvm.user) e["user"] = printable(*jvm.user);
  if (d.lock_holder) e["lock_holder_pid"] = *d.lock_holder;
  if (d.namespace_changed_ms) e["namespace_ctime_ms"] = *d.namespace_changed_ms;
  if (d.jvm_started_ms) e["jvm_start_ms"] = *d.jvm_started_ms;
  if (d.cause == InvisibleCause::no_passwd_entry) {
    const auto uid = jvm.process.effective_uid ? jvm.process.effective_uid : jvm.process.real_uid;
    if (uid) e["uid"] = *uid;
  }
  return e;
}

// The finding of the rule whose cause the JVM's diagnosis names.
void jvm_rule(const JvmSubject& s, InvisibleCause cause, std::string_view rule, Findings& out) {
  if (s.diagnosis.cause != cause) return;
  out.push_back(
      make_finding(rule, s.path,
                   "JVM pid " + std::to_string(s.jvm.process.pid) +
                       " is invisible to jps and jstat: " + printable(s.diagnosis.explanation),
                   invisible_jvm_evidence(s.jvm, s.diagnosis)));
}

}  // namespace

void jvm_backing_file_deleted(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::backing_file_deleted, "jvm.backing-file-deleted", out);
}

void jvm_perf_data_disabled(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::perf_data_disabled, "jvm.perf-data-disabled", out);
}

void jvm_create_failed(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::create_failed, "jvm.create-failed", out);
}

void jvm_locked_by_another_jvm(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::locked_by_another_jvm, "jvm.locked-by-another-jvm", out);
}

void jvm_namespace_changed(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::namespace_changed, "jvm.namespace-changed", out);
}

void jvm_cause_undetermined(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::undetermined, "jvm.cause-undetermined", out);
}

void jvm_no_passwd_entry(const JvmSubject& s, Findings& out) {
  jvm_rule(s, InvisibleCause::no_passwd_entry, "jvm.no-passwd-entry", out);
}

namespace {

// The reach of the JVM that owns `file` (checks/reach.hpp), nullopt when nobody owns it or it
// is reached as the host's JVMs are.
std::optional<ReachDiagnosis> reach_of(const TempRootFacts& root, const FileFacts& file) {
  if (!file.liveness) return std::nullopt;
  const ProcessFacts* owner = backing_file_owner(*file.liveness);
  if (owner == nullptr) return std::nullopt;
  return diagnose_reach(root, *owner);
}

}  // namespace

void jvm_own_mount_namespace(const TempRootFacts& root, const NamespaceFacts&,
                             const FileFacts& file, Findings& out) {
  const std::optional<ReachDiagnosis> d = reach_of(root, file);
  if (!d || d->cause == ReachCause::other_temp_dir) return;
  nlohmann::json e = {{"pid", d->pid},
                      {"reason", std::string(to_string(d->cause))},
                      {"explanation", printable(d->explanation)},
                      {"command", printable(d->command)}};
  if (d->unit) e["unit"] = printable(*d->unit);
  if (root.container) {
    e["mount_namespace"] = printable(root.container->mount_namespace);
    if (root.container->systemd_private_dir) {
      e["systemd_private_dir"] = printable(*root.container->systemd_private_dir);
    }
  }
  out.push_back(make_finding("jvm.own-mount-namespace", file.path,
                             "JVM pid " + std::to_string(d->pid) + ": " + printable(d->explanation),
                             std::move(e)));
}

void jvm_other_account_temp_dir(const TempRootFacts& root, const NamespaceFacts&,
                                 const FileFacts& file, Findings& out) {
  const std::optional<ReachDiagnosis> d = reach_of(root, file);
  if (!d || d->cause != ReachCause::other_temp_dir || !root.account) return;
  nlohmann::json e = {{"pid", d->pid},
                      {"reason", std::string(to_string(d->cause))},
                      {"account", printable(root.account->name)},
                      {"temp_dir", printable(root.shown_temp_dir())},
                      {"explanation", printable(d->explanation)},
                      {"command", printable(d->command)}};
  if (root.account->jvm_pid) e["named_by_pid"] = *root.account->jvm_pid;
  out.push_back(make_finding("jvm.other-account-temp-dir", file.path,
                             "JVM pid " + std::to_string(d->pid) + ": " + printable(d->explanation),
                             std::move(e)));
}

}  // namespace hsperfguard::checks
