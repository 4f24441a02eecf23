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
  undetermined,           // nothing observed now explains it
};
std::string_view to_string(InvisibleCause cause);

struct InvisibleDiagnosis {
  InvisibleCause cause = InvisibleCause::undetermined;
  std::vector<std::string> details;          // the prediction's causes, the deciding flag, ...
  std::optional<std::int32_t> lock_holder;   // locked_by_another_jvm: who holds the lock
  std::string explanation;                   // one line a person understands
  std::string fix;
};

// `ns`: the namespace HotSpot would use for the JVM (hsperfdata_<its user> in its temp dir),
// nullptr when none exists in `root`. Only for invisible JVMs (JvmProcessFacts::invisible()).
InvisibleDiagnosis diagnose_invisible(const JvmProcessFacts& jvm, const TempRootFacts& root,
                                      const NamespaceFacts* ns);

}  // namespace hsperfguard::checks
