// jvm.*: live JVMs that publish no counters jps and jstat can find, each with its cause
// (checks/invisible.hpp): one finding per JVM, by the rule of its cause. A JVM whose namespace
// HotSpot refuses is namespace.jvm-blinded's (directory.cpp), raised once for its namespace.
#include <string>

#include "checks/checks.hpp"
#include "checks/evidence.hpp"
#include "checks/invisible.hpp"
#include "checks/modules.hpp"

namespace hsperfguard::checks {
namespace {

const char* rule_of(InvisibleCause cause) {
  switch (cause) {
    case InvisibleCause::backing_file_deleted: return "jvm.backing-file-deleted";
    case InvisibleCause::perf_data_disabled: return "jvm.perf-data-disabled";
    case InvisibleCause::create_failed: return "jvm.create-failed";
    case InvisibleCause::locked_by_another_jvm: return "jvm.locked-by-another-jvm";
    case InvisibleCause::undetermined: return "jvm.cause-undetermined";
    case InvisibleCause::namespace_refused: return nullptr;  // namespace.jvm-blinded
  }
  return nullptr;
}

}  // namespace

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
  return e;
}

void check_invisible_jvms(const TempRootFacts& root, const NamespaceFacts* ns,
                          const std::vector<JvmProcessFacts>& jvms, const std::string& path, Findings& out) {
  for (const auto& jvm : jvms) {
    const InvisibleDiagnosis d = diagnose_invisible(jvm, root, ns);
    const char* rule = rule_of(d.cause);
    if (rule == nullptr) continue;
    out.push_back(make_finding(rule, path,
                               "JVM pid " + std::to_string(jvm.process.pid) + " is invisible to jps and jstat: " +
                                   printable(d.explanation),
                               invisible_jvm_evidence(jvm, d)));
  }
}

}  // namespace hsperfguard::checks
