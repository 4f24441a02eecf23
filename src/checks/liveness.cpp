// Verdict rules: what the liveness verdict of a backing file says about it. The verdict is
// decided once (liveness.cpp) and shared with the report; these rules only turn it into
// findings.
#include "checks/checks.hpp"

namespace hsperfguard::checks {

Findings check_verdict(const NamespaceFacts& ns, const FileFacts& file,
                       const LivenessVerdict& verdict) {
  (void)ns;
  Findings out;
  nlohmann::json evidence = verdict.evidence;
  evidence["reason"] = verdict.reason;
  if (verdict.verdict == Verdict::stale) {
    out.push_back(make_finding("file.stale", file.path, verdict.message, std::move(evidence)));
  } else if (verdict.verdict == Verdict::pid_reused) {
    out.push_back(make_finding("file.pid-reused", file.path, verdict.message, std::move(evidence)));
  }
  return out;
}

}  // namespace hsperfguard::checks
