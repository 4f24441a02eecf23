// Why a live JVM is invisible to jps, jstat and every tool that reads hsperfdata: decided
// once, from facts, for `ps` (its reason) and the audit (a finding per JVM, by the jvm.* rules
// of jvm.cpp). An analysis, not a rule family: it emits no finding. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.hpp"

namespace hsperfguard::checks {

// The closed set of reasons (docs/POLICY.md, "Invisible JVMs").
enum class InvisibleCause {
  backing_file_deleted,   // it published, and its file was deleted since (a tmp cleaner)
  perf_data_disabled,     // -XX:-UsePerfData or -XX:+PerfDisableSharedMem
  namespace_refused,      // HotSpot refuses its namespace (link, mode, owner, ...)
  create_failed,          // the namespace is accepted; the file cannot be made there
  locked_by_another_jvm,  // its name in its namespace is held by another process's lock
  namespace_changed,      // nothing observed now explains it, and its namespace changed after
                          // it started (a fix since, such as repair's chmod, erased the cause)
  undetermined,           // nothing observed now explains it
  no_passwd_entry,        // its uid has no user name in its own root: no namespace to name
};
std::string_view to_string(InvisibleCause cause);

struct InvisibleDiagnosis {
  InvisibleCause cause = InvisibleCause::undetermined;
  std::vector<std::string> details;          // the prediction's causes, the deciding flag, ...
  std::optional<std::int32_t> lock_holder;   // locked_by_another_jvm: who holds the lock
  // namespace_changed: the namespace's last change (its ctime) and the JVM's start, epoch ms.
  std::optional<std::int64_t> namespace_changed_ms;
  std::optional<std::int64_t> jvm_started_ms;
  std::string explanation;                   // one line a person understands
  // The catalogue's remediation of audit_rule_of(cause), for invisible_finding_path: what the
  // audit's finding says, before it is fitted to the temp dir (decide/remedy.hpp).
  std::string fix;
};

// The rule the audit reports a JVM of this cause by: namespace.jvm-blinded for a refused
// namespace (one finding for the namespace's JVMs), the jvm.* rule of its cause otherwise.
std::string_view audit_rule_of(InvisibleCause cause);

// The path of that finding: the namespace, or where HotSpot would make it when there is none.
std::string invisible_finding_path(const JvmProcessFacts& jvm, const TempRootFacts& root,
                                   const NamespaceFacts* ns);

// `ns`: the namespace HotSpot would use for the JVM (hsperfdata_<its user> in its temp dir),
// nullptr when none exists in `root`. Only for invisible JVMs (JvmProcessFacts::invisible()).
InvisibleDiagnosis diagnose_invisible(const JvmProcessFacts& jvm, const TempRootFacts& root,
                                      const NamespaceFacts* ns);

}  // namespace hsperfguard::checks
